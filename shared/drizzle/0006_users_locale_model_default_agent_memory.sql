ALTER TABLE "users" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "is_default" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "load_memory" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "memory_token_budget" integer DEFAULT 2000 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "llm_models_one_default_idx" ON "llm_models" USING btree ("is_default") WHERE "llm_models"."is_default";