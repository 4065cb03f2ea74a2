/**
 * Mermaid diagrams in answers, drawn in the browser with Mermaid loaded on first use (its own
 * chunks, ~1 MB, fetched the first time an answer holds a finished `mermaid` block). Drawing is
 * asynchronous, so `diagramSvg` answers from a cache and starts the drawing when it misses;
 * `renderReady` (render-ready.ts) makes views render again once the picture is there. A block still
 * streaming is never drawn: it would fail to parse on every frame.
 */
import { renderReady } from './render-ready.ts';
import { showsDark } from './theme/theme.svelte.ts';

export type Diagram = { svg: string } | { error: string };

type MermaidTheme = 'default' | 'dark';

const CACHE_SIZE = 100;
const drawn = new Map<string, Diagram>();
const drawing = new Set<string>();
let queue: Promise<unknown> = Promise.resolve();

function theme(): MermaidTheme {
  return showsDark() ? 'dark' : 'default';
}

/**
 * The drawing of `code` (an SVG or Mermaid's error), or undefined while it is being drawn or on the
 * server (drawing is then started, in the browser). Drawings are made one at a time.
 */
export function diagramSvg(code: string): Diagram | undefined {
  if (typeof document === 'undefined') return undefined;
  const key = `${theme()}\n${code}`;
  const diagram = drawn.get(key);
  if (diagram || drawing.has(key)) return diagram;
  drawing.add(key);
  queue = queue
    .then(() => import('./diagrams-mermaid.ts'))
    .then(({ drawDiagram }) => drawDiagram(code, key.slice(0, key.indexOf('\n')) as MermaidTheme))
    .catch(() => ({ error: 'Mermaid could not be loaded.' }))
    .then((result) => {
      drawing.delete(key);
      if (drawn.size >= CACHE_SIZE) drawn.delete(drawn.keys().next().value as string);
      drawn.set(key, result);
      renderReady();
    });
  return undefined;
}
