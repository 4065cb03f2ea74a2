ALTER TABLE "chat_sessions" ADD COLUMN "title_set_by_user" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "parent_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "selected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "search_vector" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', jsonb_path_query_array("messages"."parts", 'strict $[*] ? (@.type == "text").text'))) STORED;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "reply_to_message_id" text;--> statement-breakpoint
CREATE INDEX "messages_search_idx" ON "messages" USING gin ("search_vector");