import { Type, type TSchema } from 'typebox';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** Query fields every list accepts. */
export const PageQueryFields = {
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Page size, 1-100' }),
  offset: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Rows to skip' }),
};

/** Query fields of lists that also offer keyset paging. */
export const KeysetQueryFields = {
  ...PageQueryFields,
  afterId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Keyset cursor: return rows after this id (stays fast on large tables)' }),
  ),
};

/**
 * Query fields of newest-first lists (e.g. the audit log): keyset paging goes backwards in
 * time, `beforeId` = the last id of the previous page. Such lists take no `afterId`.
 */
export const KeysetDescQueryFields = {
  ...PageQueryFields,
  beforeId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Keyset cursor of a newest-first list: return rows older than this id (the last id of the previous page)' }),
  ),
};

export interface PageParams {
  limit: number;
  offset: number;
  /** Oldest-first lists: rows after this id. */
  afterId?: string;
  /** Newest-first lists: rows before (older than) this id. */
  beforeId?: string;
}

export interface Page<T> {
  total: number;
  data: T[];
}

/** The `{ total, data }` envelope of every list. */
export function Paged<T extends TSchema>(item: T) {
  return Type.Object({ total: Type.Integer({ minimum: 0 }), data: Type.Array(item) });
}

/** Runs the count and the page query, and maps rows to their public shape. */
export async function paginate<Row, Out>(
  count: () => Promise<number>,
  rows: () => Promise<Row[]>,
  map: (row: Row) => Out,
): Promise<Page<Out>> {
  const [total, data] = await Promise.all([count(), rows()]);
  return { total, data: data.map(map) };
}
