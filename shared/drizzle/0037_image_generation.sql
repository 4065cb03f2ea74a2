ALTER TABLE "llm_models" ADD COLUMN "generates_images" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_files" ADD COLUMN "made_by_call" text;--> statement-breakpoint
CREATE UNIQUE INDEX "llm_models_one_image_generator_idx" ON "llm_models" USING btree ("generates_images") WHERE "llm_models"."generates_images";