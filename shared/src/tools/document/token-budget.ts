import type { Tiktoken } from 'js-tiktoken/lite';

/**
 * Token counting with a real tokenizer (o200k_base, the encoding of current OpenAI models; a fair
 * measure for others too), not the chars/4 guess: Chinese text or code is far off from that.
 * The ranks are a few MB, so they load on first use, offline, from the installed package.
 */
let encoder: Promise<Tiktoken> | undefined;

function loadEncoder(): Promise<Tiktoken> {
  encoder ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]).then(
    ([{ Tiktoken }, { default: ranks }]) => new Tiktoken(ranks),
  );
  return encoder;
}

/** Counts and cuts text in tokens. */
export type TokenCounter = {
  count: (text: string) => number;
  /** The longest prefix of `text` with at most `maxTokens` tokens. */
  truncate: (text: string, maxTokens: number) => string;
};

/**
 * The shared counter. Special-token markers in user text (e.g. "<|endoftext|>") count as plain text.
 * @example const tokens = await tokenCounter(); tokens.count('记忆') // 2
 */
export async function tokenCounter(): Promise<TokenCounter> {
  const tiktoken = await loadEncoder();
  const encode = (text: string) => tiktoken.encode(text, [], []);
  return {
    count: (text) => encode(text).length,
    truncate: (text, maxTokens) => {
      const tokens = encode(text);
      if (tokens.length <= maxTokens) return text;
      // A cut inside a multi-byte character decodes to U+FFFD; drop that partial character.
      return tiktoken.decode(tokens.slice(0, Math.max(0, maxTokens))).replace(/\uFFFD+$/, '');
    },
  };
}

/** Tokens of a value as the model reads it (JSON). */
export function jsonTokens(tokens: TokenCounter, value: unknown): number {
  return tokens.count(JSON.stringify(value));
}

/**
 * The leading items whose JSON fits in `budget` tokens together. When not even the first fits,
 * it is kept with `shrink` applied (e.g. a shorter summary), so a page is never empty.
 */
export function fitItems<Item>(
  tokens: TokenCounter,
  items: Item[],
  budget: number,
  shrink: (item: Item, remainingTokens: number) => Item,
): { items: Item[]; usedTokens: number; cut: boolean } {
  const kept: Item[] = [];
  let used = 0;
  for (const item of items) {
    const cost = jsonTokens(tokens, item);
    if (used + cost > budget) {
      if (kept.length === 0) {
        const shrunk = shrink(item, budget);
        return { items: [shrunk], usedTokens: jsonTokens(tokens, shrunk), cut: true };
      }
      return { items: kept, usedTokens: used, cut: true };
    }
    kept.push(item);
    used += cost;
  }
  return { items: kept, usedTokens: used, cut: false };
}
