/**
 * The chat pages' keyboard shortcuts, as data: the chat layout dispatches the ones it handles from
 * this list and the shortcuts dialog (Ctrl+/) lists every one from it, so the help never drifts
 * from what the keys do. "Mod" is ⌘ on a Mac and Ctrl elsewhere.
 */
import type { MessageKey } from '../i18n/i18n.svelte.ts';

/** What the chat layout does for a shortcut; the others are handled where they apply (the message box). */
export type ShortcutAction = 'newChat' | 'searchChats' | 'focusInput' | 'copyLastAnswer' | 'copyLastCode' | 'showShortcuts';

export type Shortcut = {
  keys: readonly string[];
  label: MessageKey;
  /** Handled by the chat layout when set; else by the element it names in `label`. */
  action?: ShortcutAction;
  matches?: (event: KeyboardEvent) => boolean;
};

const mod = (event: KeyboardEvent) => event.ctrlKey || event.metaKey;
const key = (event: KeyboardEvent) => event.key.toLowerCase();

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Mod', 'Shift', 'O'], label: 'shortcuts.newChat', action: 'newChat', matches: (event) => mod(event) && event.shiftKey && key(event) === 'o' },
  { keys: ['Mod', 'K'], label: 'shortcuts.searchChats', action: 'searchChats', matches: (event) => mod(event) && !event.shiftKey && key(event) === 'k' },
  { keys: ['Shift', 'Esc'], label: 'shortcuts.focusInput', action: 'focusInput', matches: (event) => event.shiftKey && event.key === 'Escape' },
  // As ChatGPT and Open WebUI have them. `code` for ";": its key is ":" with Shift on some layouts.
  { keys: ['Mod', 'Shift', 'C'], label: 'shortcuts.copyLastAnswer', action: 'copyLastAnswer', matches: (event) => mod(event) && event.shiftKey && key(event) === 'c' },
  { keys: ['Mod', 'Shift', ';'], label: 'shortcuts.copyLastCode', action: 'copyLastCode', matches: (event) => mod(event) && event.shiftKey && event.code === 'Semicolon' },
  { keys: ['Mod', '/'], label: 'shortcuts.showShortcuts', action: 'showShortcuts', matches: (event) => mod(event) && event.key === '/' },
  { keys: ['Enter'], label: 'shortcuts.send' },
  { keys: ['Shift', 'Enter'], label: 'shortcuts.newLine' },
  { keys: ['Esc'], label: 'shortcuts.stop' },
  { keys: ['/'], label: 'shortcuts.prompts' },
];

/** The layout's action for `event`, if it is one of its shortcuts. */
export function shortcutAction(event: KeyboardEvent): ShortcutAction | undefined {
  return SHORTCUTS.find((shortcut) => shortcut.matches?.(event))?.action;
}

/** A key as this keyboard labels it: Mod is ⌘ on a Mac, Ctrl elsewhere. */
export function keyLabel(name: string, mac: boolean): string {
  return name === 'Mod' ? (mac ? '⌘' : 'Ctrl') : name;
}

export const isMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
