import { createHash } from 'node:crypto';
import { Column, is, SQL, Subquery, type Query } from 'drizzle-orm';
import type { DbOrTx } from './client.js';

/** What drizzle's query builders offer for placeholders: `sql.placeholder(name)` filled at execute. */
interface Preparable<R> {
  execute(placeholderValues?: Record<string, unknown>): Promise<R>;
  prepare(name: string): { execute(placeholderValues?: Record<string, unknown>): Promise<R> };
}

/**
 * A hot query built once, with `sql.placeholder`s for its values. Called on the database
 * itself it runs as a named prepared statement (drizzle builds the SQL once; PostgreSQL parses
 * and plans it once per connection). Called inside a transaction, the same built query runs on
 * the transaction's connection (building a select costs drizzle 0.1–0.2 ms of CPU, several
 * times what the statement costs PostgreSQL); a session whose connection cannot be found
 * builds it on the transaction instead. `name` must be unique in the process.
 */
export function preparedQuery<R, P extends Record<string, unknown>>(
  db: DbOrTx,
  name: string,
  build: (q: DbOrTx) => Preparable<R>,
): (params: P, tx?: DbOrTx) => Promise<R> {
  let prepared: ReturnType<Preparable<R>['prepare']> | undefined;
  return (params, tx = db) => {
    prepared ??= withRowMapper(build(db).prepare(name));
    if (tx === db) return prepared.execute(params);
    const client = sessionClient(tx);
    if (!client) return build(tx).execute(params);
    // drizzle's prepared queries (node-postgres and PGlite alike) run on their `client`: the same
    // query, with the transaction's connection in its place.
    return Object.assign(Object.create(prepared) as typeof prepared, { client }).execute(params);
  };
}

/** What a drizzle database or transaction offers for running a built query (node-postgres and PGlite alike). */
interface RawSession {
  session: { prepareQuery(query: Query, fields: undefined, name: string | undefined, arrayMode: boolean): { execute(values: Record<string, unknown>): Promise<unknown> } };
  dialect: { sqlToQuery(sql: SQL): Query };
}

/**
 * A hot raw statement (an `sql` template with `sql.placeholder`s for its values), built once:
 * drizzle turns the template into text on the first call only, and PostgreSQL parses and plans
 * it once per connection (a named prepared statement), on the database or inside a transaction
 * alike (`on`). Answers the driver's result (`rows` as PostgreSQL sent them). `name` must be
 * unique in the process.
 */
export function preparedSql<P extends Record<string, unknown>>(name: string, build: () => SQL): (params: P, on: DbOrTx) => Promise<{ rows: Array<Record<string, unknown>> }> {
  let query: Query | undefined;
  return async (params, on) => {
    const { session, dialect } = on as unknown as RawSession;
    query ??= dialect.sqlToQuery(build());
    return (await session.prepareQuery(query, undefined, name, false).execute(params)) as { rows: Array<Record<string, unknown>> };
  };
}

/** How many statements of one text run unnamed before the text is given a name (prepared). */
const HOT_AFTER = 3;
/** The most texts given a name in the process: each connection keeps a plan of each it has run (about 50 KB). */
const NAMED_TEXTS = 64;
const namedTexts = new Map<string, string>();
const textUses = new Map<string, number>();

/** The name of a statement text once it has run HOT_AFTER times, while fewer than NAMED_TEXTS have one. */
function hotName(text: string): string | undefined {
  const known = namedTexts.get(text);
  if (known !== undefined || namedTexts.size >= NAMED_TEXTS) return known;
  const uses = (textUses.get(text) ?? 0) + 1;
  if (uses < HOT_AFTER) {
    if (textUses.size >= 1024) textUses.clear();
    textUses.set(text, uses);
    return undefined;
  }
  textUses.delete(text);
  const name = `hot_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
  namedTexts.set(text, name);
  return name;
}

/**
 * Runs a statement built on each call (writeTogether's writes: their shape is the code's, their
 * values parameters), as a named prepared statement once its text is hot: PostgreSQL then
 * parses and plans it once per connection instead of on every call (a login's three inserts
 * cost it about 0.25 ms less). A text seen fewer than HOT_AFTER times, or past the NAMED_TEXTS
 * bound, runs unnamed as drizzle's `execute` would. The drizzle building is still paid on each
 * call (preparedQuery and preparedSql save it too, for statements written with placeholders).
 * Answers the statement's rows as the driver gave them (none for a write without RETURNING).
 */
export async function executeHot(on: DbOrTx, statement: SQL): Promise<Array<Record<string, unknown>>> {
  return executeHotQuery(on, (on as unknown as RawSession).dialect.sqlToQuery(statement));
}

/** executeHot for a statement whose text and (encoded) parameters are already made (write-together.ts's templates). */
export async function executeHotQuery(on: DbOrTx, query: Query): Promise<Array<Record<string, unknown>>> {
  const { session } = on as unknown as RawSession;
  const result = (await session.prepareQuery(query, undefined, hotName(query.sql), false).execute({})) as { rows?: Array<Record<string, unknown>> } | undefined;
  return result?.rows ?? [];
}

/** The connection a drizzle transaction runs on (its session's `client`), if it has one. */
function sessionClient(tx: DbOrTx): object | undefined {
  const session = (tx as unknown as { session?: { client?: unknown } }).session;
  const client = session?.client;
  return client && typeof client === 'object' && typeof (client as { query?: unknown }).query === 'function' ? client : undefined;
}

/** What drizzle's prepared selects hold for mapping the driver's rows (node-postgres and PGlite alike). */
interface SelectedField {
  path: string[];
  field: unknown;
}
interface DriverPrepared {
  fields?: SelectedField[];
  customResultMapper?: (rows: unknown[][]) => unknown;
}
interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}

/**
 * Maps the rows of a flat select (every field a top-level key: no joined tables nested under
 * their names) with a mapper made once per statement: each column's decoder is found when the
 * statement is built, not again for every field of every row. drizzle's own mapping (its
 * `mapResultRow`) asks the kind of each field (`is(field, Column)`, ...) and walks its path for
 * every value; on a page of 20 KYC attempts that was a tenth of the request's main thread. The
 * result is the same object: the same keys in the same order, null as null, every other value
 * through the column's (or the SQL expression's) mapFromDriverValue. Anything else (a join, a
 * statement that maps its own rows, a write without fields) keeps drizzle's mapping.
 */
function withRowMapper<Q>(prepared: Q): Q {
  const p = prepared as DriverPrepared;
  if (!Array.isArray(p.fields) || p.customResultMapper || !p.fields.every((f) => f.path.length === 1)) return prepared;
  const keys = p.fields.map((f) => f.path[0]!);
  // drizzle's choice of decoder (mapResultRow), made once: `decoder` is internal to its SQL type.
  const decoderOf = (sqlLike: unknown) => (sqlLike as { decoder: Decoder }).decoder;
  const decoders: Decoder[] = p.fields.map(({ field }) => {
    if (is(field, Column)) return field as Decoder;
    if (is(field, SQL)) return decoderOf(field);
    if (is(field, Subquery)) return decoderOf((field as unknown as { _: { sql: SQL } })._.sql);
    return decoderOf((field as SQL.Aliased).sql);
  });
  p.customResultMapper = (rows) =>
    rows.map((row) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const raw = row[i];
        out[keys[i]!] = raw === null ? null : decoders[i]!.mapFromDriverValue(raw);
      }
      return out;
    });
  return prepared;
}
