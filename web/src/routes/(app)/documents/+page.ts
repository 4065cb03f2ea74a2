import { listDocuments } from '#lib/documents/documents-api.ts';
import { DOCUMENT_TYPES, type DocumentType } from '#lib/documents/types.ts';
import { throwPageError } from '#lib/page-error.ts';
import type { PageLoad } from './$types';

/** Rows per page; "Load more" fetches the next page with the API's cursor. */
const PAGE_SIZE = 20;

/** The tab and the search live in the URL (`?type=document&q=…`), so a view can be reloaded and shared. */
export const load: PageLoad = async ({ fetch, url, depends }) => {
  depends('app:documents');
  const requested = url.searchParams.get('type');
  const type: DocumentType = DOCUMENT_TYPES.find((candidate) => candidate === requested) ?? 'memory';
  const q = url.searchParams.get('q')?.trim().slice(0, 500) ?? '';
  const otherType = DOCUMENT_TYPES.find((candidate) => candidate !== type)!;
  try {
    // The other tab's total only (limit 1), so each tab can say how many it holds for this search.
    const [page, other] = await Promise.all([listDocuments({ type, q, limit: PAGE_SIZE }, { fetch }), listDocuments({ type: otherType, q, limit: 1 }, { fetch })]);
    const totals = { [type]: page.total, [otherType]: other.total } as Record<DocumentType, number>;
    return { type, q, page, totals, pageSize: PAGE_SIZE };
  } catch (caught) {
    throwPageError(caught, url);
  }
};
