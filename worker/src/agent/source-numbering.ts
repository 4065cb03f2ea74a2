import { highestSourceIndex, type RunChunk, type SourceNumbering } from '@agentq/shared/events';

/**
 * A run's citation numbers (ToolContext.sources): each source tool call reserves the next free numbers,
 * so `[n]` is unique across the answer even when it searches twice ([1]–[3], then [4], [5]) or calls
 * tools in parallel (each reserve is synchronous). Lazy: the first reserve reads where the run's stored
 * outputs left off (a resumed or approved run continues the numbering); a run that calls no source
 * tool never reads anything. `notice` counts results the run is about to replay from its journal.
 */
export function createSourceNumbering(chunks: () => readonly RunChunk[]): SourceNumbering & { notice: (output: unknown) => void } {
  let next: number | undefined;
  let noticed = 0;
  const start = () => Math.max(noticed, highestSourceIndex(chunks().flatMap((chunk) => (chunk.type === 'tool-output-available' ? [chunk.output] : [])))) + 1;
  return {
    reserve(count) {
      next ??= start();
      const first = next;
      next += Math.max(0, count);
      return first;
    },
    notice(output) {
      const highest = highestSourceIndex([output]);
      noticed = Math.max(noticed, highest);
      if (next !== undefined) next = Math.max(next, highest + 1);
    },
  };
}
