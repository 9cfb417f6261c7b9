import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Page, PageParams } from '../http/pagination.js';

/**
 * One query for a page and its total: every row of the page carries the size of the whole
 * filtered set (`count(*) over ()`, computed before LIMIT and OFFSET), so a list costs one
 * statement instead of a count and a page. For small sets (one user's rows); a large table's
 * list keeps its separate count, which an index can answer without reading the rows.
 */
export function columnsWithTotal<T extends PgTable>(table: T): T['_']['columns'] & { total: SQL.Aliased<number> } {
  return { ...getTableColumns(table), total: sql<number>`count(*) over ()`.mapWith(Number).as('page_total') };
}

/**
 * The page of rows read with columnsWithTotal. A page past the end has no row to carry the
 * total: only then is `count` asked. Not for keyset pages (afterId, beforeId): there the window
 * would count only the rows past the cursor.
 */
export async function countedPage<Row extends { total: number }, Out>(
  rows: Row[],
  page: PageParams,
  count: () => Promise<number>,
  map: (row: Row) => Out,
): Promise<Page<Out>> {
  if (page.afterId || page.beforeId) throw new Error('countedPage is for offset pages only');
  const total = rows[0]?.total ?? (page.offset === 0 ? 0 : await count());
  // Each row goes to `map` as read, `total` still on it: the DTO mappers pick their fields by
  // name. Copying a row without it (`{ total, ...row }`) cost more than mapping the row.
  return { total, data: rows.map((row) => map(row)) };
}
