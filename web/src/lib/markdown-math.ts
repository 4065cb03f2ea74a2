/**
 * TeX in Markdown, in the delimiters models write: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]`
 * displayed (on lines of their own, or inside a paragraph). A `$` opens a formula only when a
 * non-space follows it and closes one only after a non-space and before a non-digit, so prices
 * ("$5 and $10") stay text. Code spans and fences are tokenized before this and stay code.
 * Until KaTeX has loaded (math.ts), a formula shows as its source.
 */
import type { TokenizerAndRendererExtension, Tokens } from 'marked';
import { escapeHtml } from './escape-html.ts';
import { typesetMath } from './math.ts';

type MathToken = Tokens.Generic & { tex: string; display: boolean };

const BLOCK = [/^ {0,3}\$\$([\s\S]+?)\$\$[ \t]*(?:\n|$)/, /^ {0,3}\\\[([\s\S]+?)\\\][ \t]*(?:\n|$)/];
const BLOCK_START = /^ {0,3}(?:\$\$|\\\[)/m;

const INLINE: { pattern: RegExp; display: boolean }[] = [
  { pattern: /^\$\$(?!\$)([\s\S]+?)\$\$/, display: true },
  { pattern: /^\\\[([\s\S]+?)\\\]/, display: true },
  { pattern: /^\\\(([\s\S]+?)\\\)/, display: false },
  { pattern: /^\$(?![\s$])((?:\\.|[^\\\n$])+?)(?<!\s)\$(?!\d)/, display: false },
];
const INLINE_START = /\$|\\\(|\\\[/;

function render(token: MathToken, wrapper: 'div' | 'span'): string {
  const tex = token.tex.trim();
  const html = typesetMath(tex, token.display);
  const kind = token.display ? 'math-display' : 'math-inline';
  if (html === undefined) {
    const source = token.display ? `$$${tex}$$` : `$${tex}$`;
    return `<${wrapper} class="math ${kind} math-pending">${escapeHtml(source)}</${wrapper}>`;
  }
  return `<${wrapper} class="math ${kind}">${html}</${wrapper}>${wrapper === 'div' ? '\n' : ''}`;
}

export const mathBlock: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start: (source) => source.match(BLOCK_START)?.index,
  tokenizer(source) {
    for (const pattern of BLOCK) {
      const match = pattern.exec(source);
      if (match?.[1]?.trim()) return { type: 'mathBlock', raw: match[0], tex: match[1], display: true };
    }
    return undefined;
  },
  renderer: (token) => render(token as MathToken, 'div'),
};

export const mathInline: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start: (source) => source.match(INLINE_START)?.index,
  tokenizer(source) {
    for (const { pattern, display } of INLINE) {
      const match = pattern.exec(source);
      if (match?.[1]?.trim()) return { type: 'mathInline', raw: match[0], tex: match[1], display };
    }
    return undefined;
  },
  renderer: (token) => render(token as MathToken, 'span'),
};
