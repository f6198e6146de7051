/** The envelope of every list response, with cursor pagination. */
export interface ListResponse<T> {
  /** One page of items. */
  items: T[];
  /** Opaque cursor of the next page, or null at the end. */
  nextCursor: string | null;
  /** Whether another page exists. */
  hasMore: boolean;
}

/** Paging parameters every list endpoint takes. */
export interface PageQuery {
  /** Page size: default 20, above 100 clamped, 0, negatives and non-integers refused. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** Default page size of list endpoints. */
export const DEFAULT_PAGE_LIMIT = 20;
/** Largest page size; larger requests are clamped. */
export const MAX_PAGE_LIMIT = 100;
