// PostgreSQL array literals for the UNNEST columns, built once per column. node-postgres would build
// the same text, but runs two regular-expression replaces over every element; a flush of 100,000
// agents has millions of elements (and 100 MB of config text), so this takes the fast path: numbers
// and booleans need no quoting, and strings are escaped only when they hold `\` or `"`.
//
// The common columns (every element a string needing no escape, or every element a number) are one
// `join` into the final text: building a quoted copy of each element first, then joining the copies,
// cost a 1 KiB string per config file and most of the flush's time in this process (allocation and
// the collections it caused).

const needsEscape = /[\\"]/;

function element(value: string | number | boolean | null): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return needsEscape.test(value)
    ? `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    : `"${value}"`;
}

type Kind = 'plain strings' | 'numbers' | 'mixed';

function kindOf(values: readonly (string | number | boolean | null)[]): Kind {
  const first = values[0];
  if (typeof first === 'number') {
    for (const v of values) if (typeof v !== 'number') return 'mixed';
    return 'numbers';
  }
  for (const v of values) if (typeof v !== 'string' || needsEscape.test(v)) return 'mixed';
  return 'plain strings';
}

/** `{a,b,NULL}` for a one-dimensional array parameter cast in SQL (`$1::text[]`, `$2::float8[]`). */
export function arrayLiteral(values: readonly (string | number | boolean | null)[]): string {
  if (values.length === 0) return '{}';
  const kind = kindOf(values);
  // join turns a number into the same text as String().
  if (kind === 'numbers') return `{${values.join(',')}}`;
  if (kind === 'plain strings') return `{"${values.join('","')}"}`;
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = element(values[i] ?? null);
  return `{${parts.join(',')}}`;
}
