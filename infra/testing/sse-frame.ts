/** One SSE frame: its `id:` (undefined for comments and `[DONE]`) and its `data:` lines joined. */
export type SseFrame = { id: number | undefined; data: string };

/** Parses the text of one frame (what stands between two blank lines). */
export function parseSseFrame(block: string): SseFrame {
  let id: number | undefined;
  let data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = Number(line.slice(3).trim());
    else if (line.startsWith('data:')) data += line.slice(5).trimStart();
  }
  return { id, data };
}
