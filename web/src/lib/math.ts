/**
 * TeX formulas typeset with KaTeX, loaded on first use: KaTeX (~270 kB) and its stylesheet and
 * fonts are one chunk, fetched the first time an answer holds a formula. Typesetting is
 * synchronous, so a formula is rendered on every re-render while its answer streams in (a formula
 * seen before comes from a small cache); `renderReady` (render-ready.ts) tells views to re-render when KaTeX arrives.
 */
import { renderReady } from './render-ready.ts';

type Katex = typeof import('./math-katex.ts');

let katex: Katex | undefined;
let loading: Promise<void> | undefined;

// A streaming answer is rendered again every frame: its formulas are typeset once each.
const CACHE_SIZE = 500;
const cache = new Map<string, string>();

/** Starts loading KaTeX (once); resolves when it can typeset, or could not be loaded. */
export function loadMath(): Promise<void> {
  loading ??= import('./math-katex.ts')
    .then((module) => {
      katex = module;
      renderReady();
    })
    .catch(() => {
      // Offline or a failed chunk: formulas stay as their TeX source.
      loading = undefined;
    });
  return loading;
}

/**
 * `tex` typeset as HTML (display or inline), or undefined while KaTeX is still loading (loading is
 * then started). A formula KaTeX cannot parse comes back as its source, marked as an error.
 */
export function typesetMath(tex: string, display: boolean): string | undefined {
  if (!katex) {
    void loadMath();
    return undefined;
  }
  const key = `${display ? 'D' : 'I'}${tex}`;
  let html = cache.get(key);
  if (html === undefined) {
    html = katex.typeset(tex, display);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, html);
  }
  return html;
}
