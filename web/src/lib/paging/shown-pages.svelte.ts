/**
 * Lists that show a page to start with and a page more each time "Show more" is pressed, by
 * reloading the list with a larger count. The count is module state (the app is an SPA, one user
 * per tab), so when the list reloads after an action it lists as many as before: a new row pushing
 * the rest down never drops one from the end of what was shown.
 */

/** The API's largest page. */
const MOST_PER_REQUEST = 200;

/** How many rows a list shows. */
export class ShownCount {
  count = $state(0);
  readonly page: number;

  constructor(page: number) {
    this.page = page;
    this.count = page;
  }

  /** A page more is being read. */
  loading = $state(false);
  /** Why the last page more could not be read. */
  error = $state<string | undefined>(undefined);

  /**
   * Shows a page more by `reload`ing the list (its load reads `count`); a failure takes the count
   * back to the `shown` rows and says why in `error`.
   */
  async showMore(reload: () => Promise<unknown>, shown: number, describe: (caught: unknown) => string): Promise<void> {
    this.loading = true;
    this.error = undefined;
    this.count += this.page;
    try {
      await reload();
    } catch (caught) {
      this.count = shown;
      this.error = describe(caught);
    } finally {
      this.loading = false;
    }
  }

  /** Back to the first page (a new search). */
  reset(): void {
    this.count = this.page;
  }
}

type Page<Item> = { items: Item[]; nextCursor: string | null; total?: number };

/** The first `count` rows, read a page at a time; `more` when rows follow, `total` when the API counts them. */
export async function loadShown<Item>(count: number, readPage: (query: { limit: number; cursor: string | null }) => Promise<Page<Item>>): Promise<{ items: Item[]; more: boolean; total?: number }> {
  const items: Item[] = [];
  let page: Page<Item>;
  do {
    page = await readPage({ limit: Math.min(count - items.length, MOST_PER_REQUEST), cursor: items.length === 0 ? null : page!.nextCursor });
    items.push(...page.items);
  } while (page.nextCursor && items.length < count);
  return { items, more: page.nextCursor !== null, total: page.total };
}
