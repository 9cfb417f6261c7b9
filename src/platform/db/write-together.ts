import { and, eq, getTableColumns, is, noopEncoder, Param, Placeholder, SQL, sql, StringChunk, type Column, type DriverValueEncoder, type Query, type SQLChunk, type SQLWrapper } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client.js';
import { executeHot, executeHotQuery } from './prepared.js';

/**
 * Runs several writes (inserts or updates built by the repos that own their tables, not yet
 * executed) as one SQL statement, each a data-modifying CTE: `WITH w0 AS (...), w1 AS (...)
 * SELECT 1`. A single statement is atomic on its own, so they commit together or not at all,
 * in one round trip and without BEGIN/COMMIT (login: five round trips became two). The writes
 * share one snapshot: none may read what another writes. A statement of a shape that recurs runs
 * prepared (executeHot). The statement's text is put together from each write's: a template's
 * (writeTemplate) as it is, any other as drizzle builds it alone, so a template's write costs no
 * building wherever it goes.
 */
export async function writeTogether(db: DbOrTx, writes: SQLWrapper[]): Promise<void> {
  if (writes.length === 0) return;
  const parts = asTemplates(db, writes);
  if (parts) await executeHotQuery(db, together(parts));
  else await executeHot(db, sql`WITH ${withClauses(writes)} SELECT 1`);
}

/**
 * The same, with `main` (an insert, update or delete with RETURNING) as the statement the
 * writes are the CTEs of: answers main's rows as PostgreSQL sent them (column names, not
 * field names). For a write whose outcome the caller needs (a conditional update), in the same
 * round trip as the writes that go with it. `main` may read a write's RETURNING rows by its
 * name: `w0` for the first, `w1` for the second, and so on.
 */
export async function writeTogetherReturning(db: DbOrTx, writes: SQLWrapper[], main: SQLWrapper): Promise<Array<Record<string, unknown>>> {
  const parts = asTemplates(db, [...writes, main]);
  if (parts) return executeHotQuery(db, together(parts.slice(0, -1), parts.at(-1)));
  if (writes.length === 0) return executeHot(db, main.getSQL());
  return executeHot(db, sql`WITH ${withClauses(writes)} ${main.getSQL()}`);
}

const withClauses = (writes: SQLWrapper[]): SQL => sql.join(writes.map((write, i) => sql`${sql.raw(`w${i}`)} AS (${write.getSQL()})`), sql`, `);

/**
 * Each write as a template's: a TemplateWrite as it is, another as drizzle builds it alone, cut
 * at its numbered parameters. Undefined when a built text does not cut cleanly (a `$n` in a
 * literal): the caller then has drizzle build the whole statement.
 */
function asTemplates(db: DbOrTx, writes: SQLWrapper[]): TemplateWrite[] | undefined {
  const parts: TemplateWrite[] = [];
  for (const write of writes) {
    if (write instanceof TemplateWrite) {
      parts.push(write);
      continue;
    }
    const query = (db as unknown as { dialect: { sqlToQuery(sql: SQL): Query } }).dialect.sqlToQuery(write.getSQL());
    const pieces = cutAtParameters(query.sql, query.params.length);
    if (!pieces) return undefined;
    parts.push(new TemplateWrite(pieces, query.params));
  }
  return parts;
}

/** The text's pieces around its parameters $1..$count, in that order; undefined when the text holds others. */
function cutAtParameters(text: string, count: number): string[] | undefined {
  const parts = text.split(/\$(\d+)/);
  if (parts.length !== 2 * count + 1) return undefined;
  for (let i = 0; i < count; i++) if (parts[2 * i + 1] !== String(i + 1)) return undefined;
  return parts.filter((_, i) => i % 2 === 0);
}

/** `WITH w0 AS (...), ... <main or SELECT 1>` from templates' writes: their pieces, with the parameters numbered in order. */
function together(writes: TemplateWrite[], main?: TemplateWrite): Query {
  const params: unknown[] = [];
  const append = (write: TemplateWrite) => {
    let text = write.pieces[0]!;
    for (let i = 0; i < write.values.length; i++) {
      params.push(write.values[i]);
      text += `$${params.length}${write.pieces[i + 1]!}`;
    }
    return text;
  };
  let text = writes.length > 0 ? 'WITH ' + writes.map((write, i) => `w${i} AS (${append(write)})`).join(', ') + ' ' : '';
  text += main ? append(main) : 'SELECT 1';
  return { sql: text, params };
}

/**
 * A write made from a template (writeTemplate): the statement's text around its parameters, and
 * their values, already encoded as the driver takes them. It is an `SQLWrapper` too, so it goes
 * wherever a write built by drizzle goes; writeTogether puts its text into the statement as it is.
 */
export class TemplateWrite implements SQLWrapper {
  constructor(
    /** n + 1 pieces of text for n values. */
    readonly pieces: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The same write as drizzle's `SQL` (each value a parameter already encoded), for a statement that mixes it with built ones. */
  getSQL(): SQL {
    const chunks: SQLChunk[] = [new StringChunk(this.pieces[0]!)];
    for (let i = 0; i < this.values.length; i++) chunks.push(new Param(this.values[i]), new StringChunk(this.pieces[i + 1]!));
    return new SQL(chunks);
  }
}

/** Runs one template's write on its own; answers its rows (RETURNING) as the driver gave them. */
export function runTemplateWrite(db: DbOrTx, write: TemplateWrite): Promise<Array<Record<string, unknown>>> {
  return executeHotQuery(db, together([], write));
}

type Slot = { name: string; encoder: DriverValueEncoder<unknown, unknown> };

/**
 * A write whose shape the code fixes (its table, its columns, its conditions) and whose values
 * are each call's. drizzle builds it once, with a placeholder for each value; each call then
 * gets that text back with its own values, each through its column's encoder as drizzle's own
 * build would give it (a TemplateWrite). drizzle's building of a statement walks its tree of
 * chunks and asks each chunk's and each value's kind several times (an audit row's insert cost
 * about 29 µs of CPU here, more than PostgreSQL spends on it); a template's write costs the
 * encoding of its values. For the writes made on every request: an audit entry, an event, a
 * session. Every value must be given (`null` for none): a missing one is a bug, not a NULL.
 */
export function writeTemplate<K extends string>(build: (db: DbOrTx, value: (name: K) => Placeholder<K>) => SQLWrapper): (db: DbOrTx, values: Readonly<Record<K, unknown>>) => TemplateWrite {
  let compiled: { pieces: string[]; slots: Slot[] } | undefined;
  return (db, values) => {
    compiled ??= compileTemplate(db, build as unknown as (db: DbOrTx, value: (name: string) => Placeholder) => SQLWrapper);
    const { pieces, slots } = compiled;
    const encoded = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const { name, encoder } = slots[i]!;
      const value = (values as Record<string, unknown>)[name];
      if (value === undefined) throw new Error(`writeTemplate: no value for "${name}"`);
      encoded[i] = value === null ? null : encoder.mapToDriverValue(value);
    }
    return new TemplateWrite(pieces, encoded);
  };
}

function compileTemplate(db: DbOrTx, build: (db: DbOrTx, value: (name: string) => Placeholder) => SQLWrapper): { pieces: string[]; slots: Slot[] } {
  const { dialect } = db as unknown as { dialect: { sqlToQuery(sql: SQL): Query } };
  const query = dialect.sqlToQuery(build(db, (name) => sql.placeholder(name)).getSQL());
  // drizzle numbers its parameters $1..$n in the order they appear: the text is cut there.
  const pieces = cutAtParameters(query.sql, query.params.length);
  if (!pieces) throw new Error('writeTemplate: the text holds parameters other than those drizzle numbered');
  const slots: Slot[] = query.params.map((param) => {
    if (is(param, Param) && is(param.value, Placeholder)) return { name: param.value.name, encoder: param.encoder };
    if (is(param, Placeholder)) return { name: param.name, encoder: noopEncoder };
    throw new Error('writeTemplate: every value of a template must be a placeholder');
  });
  return { pieces, slots };
}

/** A template inserting one whole row of `table`: every column a value (`null` where it has none; no column's default). */
export function rowInsertTemplate<T extends PgTable>(table: T): (db: DbOrTx, row: Readonly<Record<keyof T['$inferSelect'] & string, unknown>>) => TemplateWrite {
  const keys = Object.keys(getTableColumns(table)) as Array<keyof T['$inferSelect'] & string>;
  return writeTemplate<keyof T['$inferSelect'] & string>((db, value) => db.insert(table).values(Object.fromEntries(keys.map((key) => [key, value(key)])) as T['$inferInsert']));
}

/**
 * A condition of a fixed shape for updateTemplate's `when`: `build` makes its text once per
 * update shape, a placeholder for each value (the same function on every call: it names the
 * shape), and `values` are this call's.
 */
export interface TemplateCondition<K extends string = string> {
  // A method's parameters are compared both ways: a condition of named values goes where any is taken.
  build(value: (name: K) => Placeholder<K>): SQL;
  readonly values: Readonly<Record<K, unknown>>;
}

/** Update shapes (set columns and condition) one updateTemplate keeps; a caller sets a few. */
const MAX_UPDATE_SHAPES = 32;

/**
 * An update of one row by its key (`key`: the columns of the table's primary key), whose set
 * columns vary by call: a template (writeTemplate) per set of columns given, and per `when`
 * condition, made on first use. drizzle's `.update().set().where()` and its build for the
 * statement cost about an eighth of a KYC decision webhook's main thread; a template's write
 * costs the encoding of its values. As drizzle's `set`, a column given `undefined` is left out
 * and `null` sets NULL.
 */
export function updateTemplate<T extends PgTable, K extends keyof T['$inferSelect'] & string>(table: T, key: readonly K[]) {
  type C = keyof T['$inferSelect'] & string;
  const columns = getTableColumns(table) as Record<string, Column>;
  const shapes = new Map<string, (db: DbOrTx, values: Readonly<Record<string, unknown>>) => TemplateWrite>();
  const conditions = new Map<TemplateCondition['build'], number>();
  return (db: DbOrTx, keyValues: Readonly<Record<K, unknown>>, changes: Readonly<Partial<T['$inferInsert']>>, when?: TemplateCondition): TemplateWrite => {
    const given = changes as Readonly<Partial<Record<C, unknown>>>;
    const set = (Object.keys(given) as C[]).filter((name) => given[name] !== undefined);
    if (set.length === 0) throw new Error('updateTemplate: no column to set');
    let condition = conditions.get(when?.build as TemplateCondition['build']);
    if (when && condition === undefined) conditions.set(when.build, (condition = conditions.size));
    const shape = `${set.join(',')}|${condition ?? ''}`;
    let template = shapes.get(shape);
    if (!template) {
      template = writeTemplate<string>((q, value) =>
        q
          .update(table)
          .set(Object.fromEntries(set.map((name) => [name, value(`set.${name}`)])) as never)
          .where(and(...key.map((name) => eq(columns[name]!, value(`key.${name}`))), when?.build((name) => value(`when.${name}`) as Placeholder<never>))),
      );
      if (shapes.size >= MAX_UPDATE_SHAPES) shapes.delete(shapes.keys().next().value!);
      shapes.set(shape, template);
    }
    const values: Record<string, unknown> = {};
    for (const name of set) values[`set.${name}`] = given[name];
    for (const name of key) values[`key.${name}`] = keyValues[name];
    if (when) for (const [name, value] of Object.entries(when.values)) values[`when.${name}`] = value;
    return template(db, values);
  };
}

/** A read of at most one row, as a template's text and values, with the mapping of its raw row (rowReadTemplate). */
export interface RowRead<R> {
  readonly read: TemplateWrite;
  /** The row as drizzle's select maps it; undefined when the read found none (its NOT NULL columns are null). */
  map(raw: Readonly<Record<string, unknown>>): R | undefined;
}

/**
 * A read of at most one row of `table` (every column, as `db.select().from(table)`; locked or
 * not), built once with a placeholder for each value, for a statement that reads the row
 * together with writes: writeTogetherReturning's main, or the provider framework's claim of a
 * webhook, in one round trip. The mapping is drizzle's: each column's value through its
 * decoder, null as null.
 */
export function rowReadTemplate<T extends PgTable, K extends string>(
  table: T,
  build: (db: DbOrTx, value: (name: K) => Placeholder<K>) => SQLWrapper,
): (db: DbOrTx, values: Readonly<Record<K, unknown>>) => RowRead<T['$inferSelect']> {
  const template = writeTemplate<K>(build);
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>);
  // A row always has its NOT NULL columns; a table without any is absent when every column is null.
  const notNull = columns.filter(([, column]) => column.notNull).map(([, column]) => column.name);
  const required = notNull.length > 0 ? notNull : columns.map(([, column]) => column.name);
  const map = (raw: Readonly<Record<string, unknown>>): T['$inferSelect'] | undefined => {
    const absent = (name: string) => raw[name] === null || raw[name] === undefined;
    if (notNull.length > 0 ? required.some(absent) : required.every(absent)) return undefined;
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  };
  return (db, values) => ({ read: template(db, values), map });
}

/** `SELECT <columns>` after `writes`, in one statement (columns over their RETURNING rows, by name: `w0`, `w1`...): one row. */
export async function selectAfterWrites(db: DbOrTx, writes: TemplateWrite[], columns: string): Promise<Record<string, unknown>> {
  const [row] = await executeHotQuery(db, together(writes, new TemplateWrite([`SELECT ${columns}`], [])));
  return row!;
}

/**
 * `read` after `writes`, in one statement: `WITH w0 AS (...) SELECT <columns>, r.* FROM (SELECT
 * 1) LEFT JOIN LATERAL (read) r ON true`, always one row, whether the read finds one or not.
 * `columns` is SQL of the select list over the writes (`(SELECT count(*) FROM w0)::int AS
 * claimed`); the answer's row holds them and the read's columns.
 */
export async function readAfterWrites(db: DbOrTx, writes: TemplateWrite[], columns: string, read: TemplateWrite): Promise<Record<string, unknown>> {
  const pieces = [...read.pieces];
  pieces[0] = `SELECT ${columns}, r.* FROM (SELECT 1) AS one LEFT JOIN LATERAL (${pieces[0]!}`;
  pieces[pieces.length - 1] = `${pieces.at(-1)!}) AS r ON true`;
  const [row] = await executeHotQuery(db, together(writes, new TemplateWrite(pieces, read.values)));
  return row!;
}
