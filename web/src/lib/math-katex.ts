/**
 * The lazily loaded half of math.ts: KaTeX and its stylesheet (which brings the fonts).
 * Formulas come from the model, so KaTeX runs untrusted: no `\href`, `\url` or `\html…` commands
 * (trust off), bounded macro expansion and sizes, and a parse error shown instead of thrown.
 */
import katex from 'katex';
import 'katex/dist/katex.min.css';
import { escapeHtml } from './escape-html.ts';

export function typeset(tex: string, display: boolean): string {
  try {
    return katex.renderToString(tex, {
      displayMode: display,
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      maxExpand: 1000,
      maxSize: 20,
      output: 'htmlAndMathml',
    });
  } catch {
    // Not a parse error (those are rendered): show the source.
    return `<span class="katex-error">${escapeHtml(tex)}</span>`;
  }
}
