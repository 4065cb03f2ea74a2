/**
 * A session's automatic title, made from its first question the way a person would name the chat:
 * the first sentence, without markdown, code, tool directives or long URLs, cut at a word boundary.
 */
const MAX_TITLE_LENGTH = 48;
/** CJK has no spaces to cut at and packs more meaning per character. */
const MAX_CJK_TITLE_LENGTH = 20;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]/;

export const DEFAULT_SESSION_TITLE = 'New chat';

/** The title for a conversation that starts with `question` (DEFAULT_SESSION_TITLE when nothing is left). */
export function suggestSessionTitle(question: string): string {
  const plain = question
    .replace(/\[\[[^\]]*\]\]/g, ' ') // demo-model directives: [[tool:fetch {...}]]
    .replace(/```[\s\S]*?(```|$)/g, ' ') // code blocks say little about the topic
    .replace(/https?:\/\/([^/\s]+)\S*/g, '$1')
    .replace(/^[ \t]{0,3}(#{1,6}|>)[ \t]*/gm, '') // a heading's or a quote's marker
    // Emphasis and strikethrough as markdown pairs them (touching their text): a lone `*` is
    // arithmetic ("6 * 7") and a `_` inside a word is a name (snake_case), not markup.
    .replace(/(\*{1,3}|_{1,3}|~~)(?=\S)(.*?\S)\1(?![\p{L}\p{N}])/gu, '$2')
    .replace(/[`|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!plain) return DEFAULT_SESSION_TITLE;
  const sentence = firstSentence(plain);
  const title = truncate(sentence, CJK.test(sentence) ? MAX_CJK_TITLE_LENGTH : MAX_TITLE_LENGTH);
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** The longest title a model may give a chat (a longer one is cut at a word boundary). */
export const MAX_MODEL_TITLE_LENGTH = 80;
const QUOTES = `"'\`“”‘’«»「」『』`;
const EDGE_QUOTES = new RegExp(`^[${QUOTES}]+|[${QUOTES}]+$`, 'gu');

/**
 * A model's answer to "name this chat" as a title: its first line without thinking tags, a "Title:"
 * label, markdown, wrapping quotes or ending punctuation, at most MAX_MODEL_TITLE_LENGTH characters.
 * Empty when nothing is left (the chat keeps the title its first question gave it).
 */
export function cleanModelTitle(answer: string): string {
  const line =
    answer
      .replace(/<think>[\s\S]*?(<\/think>|$)/gi, '')
      .split('\n')
      .map((candidate) => candidate.trim())
      .find(Boolean) ?? '';
  let title = line
    .replace(/^(#{1,6}\s*|[-*>]\s+)/, '')
    .replace(/^\**\s*(title|标题)\s*\**\s*[:：]\s*/iu, '')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  // Quotes and ending punctuation can wrap each other ("Title." or "Title".): strip until stable.
  for (let previous = ''; previous !== title; ) {
    previous = title;
    title = title.replace(EDGE_QUOTES, '').replace(/[\s.,;:!?…。，；：！？、]+$/u, '').trim();
  }
  return [...title].length > MAX_MODEL_TITLE_LENGTH ? truncate(title, MAX_MODEL_TITLE_LENGTH - 1) : title;
}

function firstSentence(text: string): string {
  const end = text.search(/[.?!。？！](\s|$)|[。？！]/);
  const sentence = end > 0 ? text.slice(0, end + (/[?？]/.test(text[end]!) ? 1 : 0)) : text;
  return sentence.trim().length >= 3 ? sentence.trim() : text;
}

function truncate(text: string, max: number): string {
  const characters = [...text];
  if (characters.length <= max) return text;
  const cut = characters.slice(0, max).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:，；：]+$/, '')}…`;
}
