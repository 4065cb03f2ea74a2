/**
 * Markdown renders synchronously, while what colours or typesets it arrives later: a highlight.js
 * language, KaTeX, a diagram drawn by Mermaid. Each of them calls `renderReady()` when something
 * new can be drawn, and views holding Markdown render again.
 */
const listeners = new Set<() => void>();

/** Calls `listener` whenever a lazily loaded renderer has something new; returns the unsubscribe function. */
export function onRenderReady(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function renderReady(): void {
  for (const listener of listeners) listener();
}
