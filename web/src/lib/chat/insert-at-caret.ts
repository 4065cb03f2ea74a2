/**
 * Dictated text put into the message box where the caret is (replacing a selection), with a space
 * where it would otherwise run into a neighbouring word. Scripts written without spaces (Chinese,
 * Japanese) get none.
 */
export function insertAtCaret(draft: string, selection: { start: number; end: number }, text: string): { draft: string; caret: number } {
  const start = Math.max(0, Math.min(selection.start, draft.length));
  const end = Math.max(start, Math.min(selection.end, draft.length));
  const before = draft.slice(0, start);
  const after = draft.slice(end);
  const spaced = (before && needsSpace(before.at(-1)!, text[0]!) ? ' ' : '') + text + (after && needsSpace(text.at(-1)!, after[0]!) ? ' ' : '');
  return { draft: before + spaced + after, caret: before.length + spaced.length };
}

/** Two characters that need a space between them: neither is one, and neither is a CJK character. */
function needsSpace(left: string, right: string): boolean {
  if (/\s/.test(left) || /\s/.test(right)) return false;
  if (CJK.test(left) || CJK.test(right)) return false;
  // No space before closing punctuation ("word" + ", and") nor after an opening bracket.
  return !/[.,;:!?)\]}]/.test(right) && !/[([{]/.test(left);
}

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]/;
