/**
 * The text part a run ends with when the tool-call limit stopped it before a final answer: API
 * clients read it in the message; the chat UI shows its own styled note instead (never both).
 */
export const STEP_LIMIT_NOTE = '(The tool-call limit was reached before the model could write a final answer. The tool results above are what it found.)';
