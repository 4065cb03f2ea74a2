ALTER TABLE "llm_models" ADD COLUMN "input_price" numeric(14, 6);--> statement-breakpoint
ALTER TABLE "llm_models" ADD COLUMN "output_price" numeric(14, 6);--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cost" numeric(18, 8);