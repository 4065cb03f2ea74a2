import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { knowledgeChunks, knowledgeFiles } from '../../db/schema';
import { cjkTerms, hasCjk } from '../cjk-search';
import { containsAllTerms, ENGLISH_SEARCH_CONFIG } from '../text-search';
import { SecretDecryptionError } from '../secrets';
import { embedTexts, findEmbeddingModel } from './embeddings';
import { vectorRanking } from './vector-ranking';

/** One retrieved passage: where it came from and its text. */
export type KnowledgePassage = { baseId: string; fileId: string; fileName: string; position: number; text: string; score: number };

export type KnowledgeSearchResult = {
  passages: KnowledgePassage[];
  /** `hybrid`: vector similarity and full-text ranks fused; `full-text`: no embedding model (or its call failed). */
  mode: 'hybrid' | 'full-text';
};

/** Candidates each ranking contributes before fusion. */
const CANDIDATES = 50;
/** Reciprocal rank fusion's constant (Cormack et al. 2009): damps the weight of the very top ranks. */
const RRF_K = 60;
export const MAX_TOP_K = 20;

/**
 * The English query matching ANY of the query's stemmed words (stop words dropped), ranked by how many
 * and how often: a question ("how many days of leave") rarely has every word in the passage that answers
 * it, which `websearch_to_tsquery`'s AND would demand. The lexemes are quoted, so nothing in the query is
 * tsquery syntax.
 */
function anyWordQuery(query: string) {
  const config = sql.raw(`'${ENGLISH_SEARCH_CONFIG}'::regconfig`);
  return sql`(select coalesce(string_agg('''' || replace(replace(lexeme, chr(92), ''), '''', '''''') || '''', ' | '), '')::tsquery from unnest(tsvector_to_array(to_tsvector(${config}, ${query}))) as lexeme)`;
}

/** Chunk ids by full-text rank: English stems (any word), plus every CJK term as a substring (PostgreSQL cannot split CJK words). */
async function fullTextRanking(db: Database, baseIds: string[], query: string): Promise<number[]> {
  const words = anyWordQuery(query);
  const cjk = hasCjk(query) ? cjkTerms(query) : [];
  const cjkRank = cjk.length
    ? sql<number>`(${sql.join(cjk.map((term) => sql`0.1 * ln(1 + (length(${knowledgeChunks.text}) - length(replace(lower(${knowledgeChunks.text}), ${term}, ''))) / ${term.length})`), sql` + `)})`
    : sql<number>`0`;
  const rows = await db
    .select({ id: knowledgeChunks.id })
    .from(knowledgeChunks)
    .where(and(inArray(knowledgeChunks.baseId, baseIds), or(sql`${knowledgeChunks.searchVector} @@ ${words}`, cjk.length ? containsAllTerms(knowledgeChunks.text, cjk) : sql`false`)))
    .orderBy(desc(sql`ts_rank(${knowledgeChunks.searchVector}, ${words}) + ${cjkRank}`), knowledgeChunks.id)
    .limit(CANDIDATES);
  return rows.map((row) => row.id);
}

/** Reciprocal rank fusion: each list adds 1 / (RRF_K + rank) to the ids it holds. */
export function fuseRankings(rankings: readonly (readonly number[])[]): Map<number, number> {
  const scores = new Map<number, number>();
  for (const ranking of rankings) ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + index + 1)));
  return scores;
}

/**
 * The `topK` passages of `baseIds` that best answer `query`: full-text rank fused with vector similarity
 * when a model is flagged "Embeds text" (the query is embedded with it), full-text alone otherwise or
 * when the embedding call fails. The caller decides which bases may be read.
 */
export async function searchKnowledge(db: Database, baseIds: readonly string[], query: string, options: { topK: number; appSecret: string; signal?: AbortSignal }): Promise<KnowledgeSearchResult> {
  const ids = [...new Set(baseIds)];
  const trimmed = query.trim();
  if (ids.length === 0 || trimmed === '') return { passages: [], mode: 'full-text' };

  // A key this process cannot decrypt (APP_SECRET changed) leaves search to full-text rather than failing it.
  const model = await findEmbeddingModel(db, options.appSecret).catch((error: unknown) => {
    if (error instanceof SecretDecryptionError) return null;
    throw error;
  });
  const queryVector = model ? await embedTexts(model, [trimmed], { signal: options.signal }) : null;
  const [textIds, vectorIds] = await Promise.all([
    fullTextRanking(db, ids, trimmed),
    queryVector?.ok ? vectorRanking(db, ids, queryVector.vectors[0]!, CANDIDATES) : Promise.resolve(null),
  ]);
  const scores = fuseRankings(vectorIds ? [vectorIds, textIds] : [textIds]);
  const best = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, Math.min(Math.max(1, options.topK), MAX_TOP_K));
  if (best.length === 0) return { passages: [], mode: vectorIds ? 'hybrid' : 'full-text' };

  const rows = await db
    .select({ id: knowledgeChunks.id, baseId: knowledgeChunks.baseId, fileId: knowledgeChunks.fileId, fileName: knowledgeFiles.name, position: knowledgeChunks.position, text: knowledgeChunks.text })
    .from(knowledgeChunks)
    .innerJoin(knowledgeFiles, eq(knowledgeFiles.id, knowledgeChunks.fileId))
    .where(inArray(knowledgeChunks.id, best.map(([id]) => id)));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const passages = best.flatMap(([id, score]) => {
    const row = byId.get(id);
    return row ? [{ baseId: row.baseId, fileId: row.fileId, fileName: row.fileName, position: row.position, text: row.text, score: Math.round(score * 10_000) / 10_000 }] : [];
  });
  return { passages, mode: vectorIds ? 'hybrid' : 'full-text' };
}
