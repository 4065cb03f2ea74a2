/**
 * Syntax highlighting for code blocks with highlight.js, languages loaded on first use: the core
 * (~20 kB) ships with the page and each language is its own small chunk, fetched the first time a
 * block in it appears. Highlighting is synchronous, so a block is coloured on every re-render while
 * its text streams in; `renderReady` (render-ready.ts) tells views to re-render when a language arrives.
 */
import hljs from 'highlight.js/lib/core';
import type { LanguageFn } from 'highlight.js';
import { renderReady } from './render-ready.ts';

type Loader = () => Promise<{ default: LanguageFn }>;

const LOADERS: Record<string, Loader> = {
  bash: () => import('highlight.js/lib/languages/bash'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  css: () => import('highlight.js/lib/languages/css'),
  diff: () => import('highlight.js/lib/languages/diff'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  go: () => import('highlight.js/lib/languages/go'),
  ini: () => import('highlight.js/lib/languages/ini'),
  java: () => import('highlight.js/lib/languages/java'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  php: () => import('highlight.js/lib/languages/php'),
  python: () => import('highlight.js/lib/languages/python'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  rust: () => import('highlight.js/lib/languages/rust'),
  sql: () => import('highlight.js/lib/languages/sql'),
  swift: () => import('highlight.js/lib/languages/swift'),
  typescript: () => import('highlight.js/lib/languages/typescript'),
  xml: () => import('highlight.js/lib/languages/xml'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
};

const ALIASES: Record<string, string> = {
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  html: 'xml',
  svg: 'xml',
  svelte: 'xml',
  vue: 'xml',
  yml: 'yaml',
  toml: 'ini',
  md: 'markdown',
  rs: 'rust',
  golang: 'go',
  'c++': 'cpp',
  cs: 'csharp',
  kt: 'kotlin',
  rb: 'ruby',
  docker: 'dockerfile',
  patch: 'diff',
  jsonc: 'json',
};

const pending = new Map<string, Promise<void>>();

/** Starts loading language `name` (once); resolves when it is registered, or could not be. */
export function loadLanguage(name: string): Promise<void> {
  const loader = LOADERS[name];
  if (!loader || hljs.getLanguage(name)) return Promise.resolve();
  let loading = pending.get(name);
  if (!loading) {
    loading = loader()
      .then((module) => {
        hljs.registerLanguage(name, module.default);
        renderReady();
      })
      .catch(() => {
        // Offline or a failed chunk: the block stays plain text.
      });
    pending.set(name, loading);
  }
  return loading;
}

/** The highlight.js name for a fence's info string ("ts", "Python", "c++"), or undefined when unsupported. */
export function languageName(info: string | undefined): string | undefined {
  const word = info?.trim().split(/\s+/)[0]?.toLowerCase();
  if (!word) return undefined;
  const name = ALIASES[word] ?? word;
  return name in LOADERS ? name : undefined;
}

/**
 * `code` as highlighted HTML (spans with `hljs-*` classes, everything else escaped), or undefined
 * when its language is unknown or still loading (loading is then started).
 */
export function highlightCode(code: string, info: string | undefined): string | undefined {
  const name = languageName(info);
  if (!name) return undefined;
  if (!hljs.getLanguage(name)) {
    void loadLanguage(name);
    return undefined;
  }
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}
