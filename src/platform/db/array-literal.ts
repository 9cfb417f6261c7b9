/**
 * A PostgreSQL array literal of values that need no quoting (uuids, integers, plain words). A
 * value that would need it (a comma, a brace, a quote, a space) is refused: it would change the
 * array's elements, not be one of them.
 */
export function arrayLiteral(values: ReadonlyArray<string | number>): string {
  for (const value of values) {
    if (typeof value === 'string' && !/^[A-Za-z0-9_-]+$/.test(value)) throw new Error(`not an array element without quoting: ${JSON.stringify(value.slice(0, 40))}`);
  }
  return `{${values.join(',')}}`;
}
