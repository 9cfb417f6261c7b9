import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * A row as one JSON object built by PostgreSQL (`json_build_object`), keyed as the repo names
 * its fields: for scalar subqueries that several modules' reads join into one statement.
 * Timestamps arrive as ISO 8601 text and numbers as JSON numbers; the reader converts them.
 */
export function jsonObject(fields: Record<string, SQLWrapper>): SQL {
  const pairs = Object.entries(fields).map(([key, value]) => sql`${sql.raw(`'${key.replace(/'/g, "''")}'`)}, ${value}`);
  return sql`json_build_object(${sql.join(pairs, sql`, `)})`;
}

/**
 * One row's fields as a JSON value, as a scalar subquery (null when no row matches): the first
 * row of `from` where `where` holds, in `orderBy`'s order when given.
 */
export function rowJson(fields: Record<string, SQLWrapper>, from: SQLWrapper, where: SQL, orderBy?: SQL): SQL {
  return sql`(select ${jsonObject(fields)} from ${from} where ${where}${orderBy ? sql` order by ${orderBy}` : sql``} limit 1)`;
}
