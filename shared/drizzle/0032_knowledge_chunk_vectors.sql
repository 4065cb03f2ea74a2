ALTER TABLE "knowledge_chunks" ADD COLUMN "vector" "bytea";--> statement-breakpoint
-- The embeddings stored so far, as the new column's 4-byte big-endian floats (0033 drops the old one).
UPDATE "knowledge_chunks" SET "vector" = (SELECT string_agg(float4send(value), ''::bytea ORDER BY ordinality) FROM unnest("embedding") WITH ORDINALITY AS element(value, ordinality)) WHERE "embedding" IS NOT NULL;
