import { invalidate } from '$app/navigation';
import type { NoticeMessage } from '../components/notice.svelte';
import { t } from '../i18n/i18n.svelte.ts';
import { errorMessage } from '../page-error.ts';

export type ResourceListOptions<Item> = {
  /** The `depends()` key of the page's `load`: invalidating it refreshes the list. */
  dependency: `app:${string}`;
  /** Deletes one item (the API call). */
  remove?: (item: Item) => Promise<unknown>;
  /** The success line after a delete, e.g. "Deleted Calc." */
  deleted?: (item: Item) => string;
  /** The success line after the editor saved, e.g. "Created Calc." */
  saved?: (item: Item, created: boolean) => string;
};

/**
 * The state every admin list page shares: which item the editor holds, which row asks "Delete …?",
 * which rows are busy, and the outcome line. Actions reload the page's data and report success or
 * the API's error in `notice`, so a page only says what its rows look like.
 * @example const list = new ResourceList<AgentView>({ dependency: 'app:agents', remove: (agent) => deleteAgent(agent.id), deleted: (agent) => `Deleted ${agent.name}.` });
 */
export class ResourceList<Item extends { id: string }> {
  /** The editor is open: `{}` for a new item, `{ item }` to edit one. */
  editing = $state<{ item?: Item } | null>(null);
  /** The id of the row showing its delete confirmation. */
  confirming = $state<string | null>(null);
  busy = $state<Record<string, boolean>>({});
  notice = $state<NoticeMessage | null>(null);

  readonly #options: ResourceListOptions<Item>;

  constructor(options: ResourceListOptions<Item>) {
    this.#options = options;
  }

  create(): void {
    this.editing = {};
  }

  edit(item: Item): void {
    this.editing = { item };
  }

  closeEditor(): void {
    this.editing = null;
  }

  confirmDelete(item: Item): void {
    this.confirming = item.id;
  }

  cancelDelete(): void {
    this.confirming = null;
  }

  isBusy(item: Item): boolean {
    return this.busy[item.id] ?? false;
  }

  reload(): Promise<void> {
    return invalidate(this.#options.dependency);
  }

  /**
   * Runs `action` for one row (its buttons disabled meanwhile), reloads the list and reports the
   * outcome. Answers whether it succeeded.
   */
  async act(item: Item, action: () => Promise<unknown>, success?: string): Promise<boolean> {
    this.busy[item.id] = true;
    this.notice = null;
    try {
      await action();
      this.confirming = null;
      await this.reload();
      if (success) this.notice = { kind: 'success', text: success };
      return true;
    } catch (caught) {
      this.notice = { kind: 'error', text: errorMessage(caught, t('common.somethingWrong')) };
      // The list may have changed underneath (a failed step of several): show what is there now.
      await this.reload().catch(() => undefined);
      return false;
    } finally {
      delete this.busy[item.id];
    }
  }

  /** Deletes the item after its confirmation. */
  remove(item: Item): Promise<boolean> {
    const { remove, deleted } = this.#options;
    if (!remove) throw new Error('This list has no remove action');
    return this.act(item, () => remove(item), deleted?.(item));
  }

  /** The editor saved `item`: close it, refresh, and say so. */
  async saved(item: Item, created: boolean): Promise<void> {
    this.editing = null;
    this.notice = null;
    await this.reload();
    const text = this.#options.saved?.(item, created);
    if (text) this.notice = { kind: 'success', text };
  }
}
