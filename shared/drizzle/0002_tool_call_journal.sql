CREATE TABLE "tool_calls" (
	"run_id" text NOT NULL,
	"tool_call_id" text NOT NULL,
	"tool_id" text,
	"tool_slug" varchar(50) NOT NULL,
	"input" jsonb,
	"effect" varchar(20) NOT NULL,
	"state" varchar(20) NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "tool_calls_run_id_tool_call_id_pk" PRIMARY KEY("run_id","tool_call_id")
);
--> statement-breakpoint
ALTER TABLE "agent_tools" ADD COLUMN "retry_interrupted" varchar(30) DEFAULT 'never' NOT NULL;