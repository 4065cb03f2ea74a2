-- Custom migration (hand-written; keep it separate from the generated ones): conversations stored before
-- messages formed a tree become one branch, each message following the one before it.
UPDATE "messages" AS m SET "parent_id" = ordered.previous_id
FROM (
  SELECT "id", lag("id") OVER (PARTITION BY "session_id" ORDER BY "created_at", "id") AS previous_id FROM "messages"
) AS ordered
WHERE m."id" = ordered."id" AND m."parent_id" IS NULL AND ordered.previous_id IS NOT NULL;--> statement-breakpoint
UPDATE "runs" AS r SET "reply_to_message_id" = m."id"
FROM "messages" AS m
WHERE r."kind" = 'chat' AND r."reply_to_message_id" IS NULL AND m."run_id" = r."id" AND m."role" = 'user';
