// PostgreSQL array literals for the UNNEST columns, built once per column. node-postgres would build
// the same text, but runs two regular-expression replaces over every element; a flush of 100,000
// agents has millions of elements (and 100 MB of config text), so this takes the fast path: numbers
// and booleans need no quoting, and strings are escaped only when they hold `\` or `"`.

const needsEscape = /[\\"]/;

function element(value: string | number | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return needsEscape.test(value)
    ? `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    : `"${value}"`;
}

/** `{a,b,NULL}` for a one-dimensional array parameter cast in SQL (`$1::text[]`, `$2::float8[]`). */
export function arrayLiteral(values: readonly (string | number | boolean | null)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = element(values[i] ?? null);
  return `{${parts.join(',')}}`;
}
