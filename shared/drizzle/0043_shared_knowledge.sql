ALTER TABLE "knowledge_bases" ADD COLUMN "shared" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD COLUMN "group_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "knowledge_bases_shared_idx" ON "knowledge_bases" USING btree ("shared") WHERE "knowledge_bases"."shared";