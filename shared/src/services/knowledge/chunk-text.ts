/**
 * Splits a file's text into passages for retrieval: paragraphs and Markdown headings are the cut
 * points, packed into chunks of about `size` characters; a paragraph longer than that is cut at
 * sentence ends, then at spaces. Each chunk after the first starts with the last `overlap`
 * characters of the one before (whole words), so a passage cut in two is still found whole once.
 * Hand-written rather than LangChain's RecursiveCharacterTextSplitter: that needs @langchain/core
 * (megabytes) for forty lines of string handling.
 */

export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 150;

export type ChunkOptions = { size?: number; overlap?: number };

const HEADING = /^#{1,6}\s/;

/** The text's blocks: paragraphs (blank-line separated), each Markdown heading starting one of its own. */
function blocksOf(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  const flush = () => {
    const block = current.join('\n').trim();
    if (block) blocks.push(block);
    current = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') flush();
    else {
      if (HEADING.test(line)) flush();
      current.push(line.trimEnd());
    }
  }
  flush();
  return blocks;
}

/** A block longer than `size` cut at sentence ends, then at whitespace, then anywhere. */
function pieces(block: string, size: number): string[] {
  if (block.length <= size) return [block];
  const sentences = block.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)\s*/gu) ?? [block];
  const out: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (sentence.length > size) {
      if (current) out.push(current.trim());
      current = '';
      for (let start = 0; start < sentence.length; ) {
        let end = Math.min(sentence.length, start + size);
        const space = sentence.lastIndexOf(' ', end);
        if (end < sentence.length && space > start + size / 2) end = space;
        out.push(sentence.slice(start, end).trim());
        start = end;
      }
    } else if (current.length + sentence.length > size) {
      out.push(current.trim());
      current = sentence;
    } else current += sentence;
  }
  if (current.trim()) out.push(current.trim());
  return out.filter((piece) => piece.length > 0);
}

/** The end of `text`, about `length` characters, starting at a word. */
function tail(text: string, length: number): string {
  if (length <= 0 || text.length <= length) return length <= 0 ? '' : text;
  const cut = text.slice(-length);
  const space = cut.search(/\s/);
  return (space >= 0 && space < cut.length - 1 ? cut.slice(space + 1) : cut).trim();
}

/**
 * `text` as retrieval passages of about `size` characters (default 1,000) with `overlap` (default 150).
 * @example chunkText('# Leave\n\nStaff get 25 days…') // ['# Leave\n\nStaff get 25 days…']
 */
export function chunkText(text: string, options: ChunkOptions = {}): string[] {
  const size = options.size ?? CHUNK_SIZE;
  const overlap = Math.min(options.overlap ?? CHUNK_OVERLAP, Math.floor(size / 2));
  const chunks: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) chunks.push(current.trim());
    current = '';
  };
  for (const block of blocksOf(text)) {
    // A heading opens a new chunk unless the current one is still short: sections stay together.
    if (HEADING.test(block) && current.length > size / 4) flush();
    for (const piece of pieces(block, size)) {
      if (current && current.length + piece.length + 2 > size) {
        const previous = current;
        flush();
        const carried = tail(previous, overlap);
        current = carried && carried.length + piece.length + 2 <= size + overlap ? `${carried}\n\n` : '';
      }
      current = current ? `${current}${current.endsWith('\n\n') ? '' : '\n\n'}${piece}` : piece;
    }
  }
  flush();
  return chunks;
}
