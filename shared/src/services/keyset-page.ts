import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { z } from 'zod';

/**
 * Keyset pages over `(timestamp, id)`, newest first: the cursor is the last row's position,
 * `<timestamp in epoch microseconds>~<id>`, exact (PostgreSQL keeps microseconds, which a JS Date
 * would round) and stable while rows are added, moved to the top or deleted meanwhile. Works on
 * PostgreSQL and PGlite alike.
 */

/** `limit` and `cursor` of a list route's query (`limit` 1-200, 50 when absent). */
export const keysetQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** The `nextCursor` of the previous page. */
  cursor: z
    .string()
    .regex(/^\d{1,17}~[\w-]{1,100}$/, 'Expected the nextCursor of an earlier page')
    .optional(),
});

/** The ordering and cursor condition of newest-first pages on `(at, id)`. */
export function newestFirst(at: AnyColumn, id: AnyColumn) {
  return {
    /** Select it beside the row: what its cursor is made of. */
    position: sql<string>`(extract(epoch from ${at}) * 1000000)::bigint::text`,
    orderBy: [sql`${at} desc`, sql`${id} desc`],
    /** The rows after the cursor's (every row when there is none). */
    after(cursor: string | undefined): SQL | undefined {
      if (!cursor) return undefined;
      const split = cursor.indexOf('~');
      return sql`(${at}, ${id}) < (to_timestamp(0) + ${cursor.slice(0, split)}::bigint * interval '1 microsecond', ${cursor.slice(split + 1)})`;
    },
  };
}

/** A page of `limit` from rows read with `limit + 1` (the extra one says whether more follow). */
export function keysetPage<Row extends { position: string }, Item extends { id: string }>(rows: Row[], limit: number, item: (row: Row) => Item): { items: Item[]; nextCursor: string | null } {
  const items = rows.slice(0, limit).map(item);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? `${rows[limit - 1]!.position}~${last.id}` : null };
}
