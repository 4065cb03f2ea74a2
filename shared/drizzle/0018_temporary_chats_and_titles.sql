ALTER TABLE "llm_models" ADD COLUMN "names_chats" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "temporary" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "chat_sessions_temporary_idx" ON "chat_sessions" USING btree ("updated_at") WHERE "chat_sessions"."temporary";