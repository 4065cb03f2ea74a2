ALTER TABLE "prompts" ADD COLUMN "shared" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "prompts" ADD COLUMN "group_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "prompts_shared_idx" ON "prompts" USING btree ("shared") WHERE "prompts"."shared";