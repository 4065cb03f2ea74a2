/**
 * Lists whose first page comes from the route's `load` and that "Load more" extends a page at a
 * time by the API's cursor, until the route's data changes (a new filter) and the list starts over.
 */

type Page<Item> = { items: Item[]; nextCursor?: string | null };

export class CursorPages<Item> {
  readonly #firstPage: () => Page<Item>;
  readonly #keyOf: (item: Item) => string;

  /** What is shown: the first page, then each page appended (reset when the first page changes). */
  loaded = $derived.by((): { items: Item[]; nextCursor: string | null } => {
    const page = this.#firstPage();
    return { items: page.items, nextCursor: page.nextCursor ?? null };
  });
  /** A page more is being read. */
  loading = $state(false);
  /** Why the last page more could not be read. */
  error = $state<string | null>(null);

  /** `keyOf` names a row: a row that moved to the top meanwhile (a newer change) is never shown twice. */
  constructor(firstPage: () => Page<Item>, keyOf: (item: Item) => string) {
    this.#firstPage = firstPage;
    this.#keyOf = keyOf;
  }

  /** Reads the page after the last one shown with `readPage` and appends it; a failure says why in `error`. */
  async loadMore(readPage: (cursor: string) => Promise<Page<Item>>, describe: (caught: unknown) => string): Promise<void> {
    const { items, nextCursor } = this.loaded;
    if (!nextCursor || this.loading) return;
    this.loading = true;
    this.error = null;
    try {
      const next = await readPage(nextCursor);
      const shown = new Set(items.map(this.#keyOf));
      this.loaded = { items: [...items, ...next.items.filter((item) => !shown.has(this.#keyOf(item)))], nextCursor: next.nextCursor ?? null };
    } catch (caught) {
      this.error = describe(caught);
    } finally {
      this.loading = false;
    }
  }
}
