/**
 * What an inline edit in a list (renaming a chat or a folder, filing a chat) does the same way:
 * its field takes the focus with its text selected, and Escape closes it without reaching the page
 * (where Escape stops a running answer).
 */

/** A Svelte action: focus the field and select its text (`use:selectOnMount`). */
export function selectOnMount(element: HTMLInputElement): void {
  element.focus();
  element.select();
}

/** A keydown handler that calls `close` on Escape, and keeps the key from the page. */
export function closeOnEscape(close: () => void): (event: KeyboardEvent) => void {
  return (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    close();
  };
}
