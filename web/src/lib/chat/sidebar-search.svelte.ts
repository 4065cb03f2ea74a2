/**
 * The chat sidebar's search box, which the chat page also fills: clicking a tag on a chat searches
 * `tag:name`. `revealed` counts those requests, for the layout to open the phone's drawer.
 */
class SidebarSearch {
  query = $state('');
  revealed = $state(0);

  /** Puts `query` in the search box and shows the sidebar. */
  search(query: string): void {
    this.query = query;
    this.revealed += 1;
  }
}

export const sidebarSearch = new SidebarSearch();
