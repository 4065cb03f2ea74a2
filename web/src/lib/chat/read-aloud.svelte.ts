/**
 * Read aloud: an answer spoken by the browser's own speech synthesis (Web Speech API), so no text
 * leaves the device for a speech service of ours. One answer speaks at a time; what is read is the
 * answer's words without its code blocks or Markdown marks.
 */
import { Lexer, type Token } from 'marked';

/** Chrome stops some voices after ~15 s of one utterance: an answer is spoken as a queue of short ones. */
const MAX_CHUNK = 220;

function tokenText(tokens: Token[]): string {
  let text = '';
  for (const token of tokens) {
    if (token.type === 'code' || token.type === 'html' || token.type === 'image') continue;
    if (token.type === 'space' || token.type === 'hr') text += '\n';
    else if (token.type === 'br') text += ' ';
    else if (token.type === 'list') text += `${token.items.map((item: Token) => tokenText([item])).join('\n')}\n`;
    else if (token.type === 'table') {
      const rows = [token.header, ...token.rows] as { tokens: Token[] }[][];
      text += `${rows.map((row) => row.map((cell) => tokenText(cell.tokens)).join(', ')).join('.\n')}\n`;
    } else if ('tokens' in token && token.tokens) text += tokenText(token.tokens) + (token.type === 'paragraph' || token.type === 'heading' ? '\n' : '');
    else if ('text' in token && typeof token.text === 'string') text += token.text;
  }
  return text;
}

/** What an answer's Markdown sounds like: its words, without code blocks, images or markup. */
export function speakableText(markdown: string): string {
  const text = tokenText(new Lexer({ gfm: true }).lex(markdown));
  return text.replace(/[ \t]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
}

/** `text` in pieces of at most MAX_CHUNK characters, cut after a sentence or line where one ends in time. */
export function speechChunks(text: string): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > MAX_CHUNK) {
    const window = rest.slice(0, MAX_CHUNK);
    const sentenceEnd = Math.max(...['. ', '! ', '? ', '\n', '。', '！', '？', '; ', '；'].map((mark) => window.lastIndexOf(mark) + mark.length));
    const cut = sentenceEnd > MAX_CHUNK / 3 ? sentenceEnd : window.lastIndexOf(' ') > MAX_CHUNK / 3 ? window.lastIndexOf(' ') + 1 : MAX_CHUNK;
    chunks.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) chunks.push(rest);
  return chunks;
}

/** A language tag for scripts the page's own language would read wrongly; undefined: the page's language. */
export function speechLanguage(text: string): string | undefined {
  if (/[\u3040-\u30ff]/.test(text)) return 'ja-JP';
  if (/[\uac00-\ud7af]/.test(text)) return 'ko-KR';
  if (/[\u4e00-\u9fff]/.test(text)) return 'zh-CN';
  return undefined;
}

class ReadAloud {
  /** The answer being spoken (a key its view chose), or undefined. */
  speaking = $state<symbol | undefined>(undefined);

  get supported(): boolean {
    return typeof window !== 'undefined' && 'speechSynthesis' in window && typeof SpeechSynthesisUtterance === 'function';
  }

  /** Speaks `markdown` for `key`, or stops when `key` is the one speaking. */
  toggle(key: symbol, markdown: string): void {
    if (!this.supported) return;
    const wasSpeaking = this.speaking === key;
    this.stop();
    if (wasSpeaking) return;
    const text = speakableText(markdown);
    const chunks = speechChunks(text);
    if (chunks.length === 0) return;
    const language = speechLanguage(text);
    this.speaking = key;
    chunks.forEach((chunk, index) => {
      const utterance = new SpeechSynthesisUtterance(chunk);
      if (language) utterance.lang = language;
      if (index === chunks.length - 1) {
        utterance.onend = () => {
          if (this.speaking === key) this.speaking = undefined;
        };
      }
      utterance.onerror = () => {
        if (this.speaking === key) this.stop();
      };
      speechSynthesis.speak(utterance);
    });
  }

  stop(): void {
    this.speaking = undefined;
    if (this.supported) speechSynthesis.cancel();
  }
}

export const readAloud = new ReadAloud();
