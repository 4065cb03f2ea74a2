CREATE TABLE "chat_session_tags" (
	"session_id" text NOT NULL,
	"tag_id" text NOT NULL,
	CONSTRAINT "chat_session_tags_session_id_tag_id_pk" PRIMARY KEY("session_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "chat_tags" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_session_tags" ADD CONSTRAINT "chat_session_tags_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_session_tags" ADD CONSTRAINT "chat_session_tags_tag_id_chat_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."chat_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_tags" ADD CONSTRAINT "chat_tags_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_session_tags_tag_idx" ON "chat_session_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_tags_user_name_idx" ON "chat_tags" USING btree ("user_id",lower("name"));