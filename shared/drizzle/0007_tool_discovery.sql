ALTER TABLE "agent_tool_logs" ALTER COLUMN "tool_slug" SET DATA TYPE varchar(100);--> statement-breakpoint
ALTER TABLE "tool_calls" ALTER COLUMN "tool_slug" SET DATA TYPE varchar(100);--> statement-breakpoint
ALTER TABLE "agent_tools" ADD COLUMN "discovery" jsonb;--> statement-breakpoint
ALTER TABLE "agent_tools" ADD COLUMN "discovery_error" text;--> statement-breakpoint
ALTER TABLE "agent_tools" ADD COLUMN "secrets_encrypted" text;