// Command-line flags of the service and its tools. Go-style single-dash flags (`-config FILE`,
// `-config=FILE`), as operators of Go OpAMP servers type them, are accepted beside `--config`.

import { parseArgs } from 'node:util';

/** Reads string-valued flags; throws (TypeError) on an unknown flag or a missing value. */
export function readStringFlags<const N extends string>(
  argv: readonly string[],
  names: readonly N[],
): Partial<Record<N, string>> {
  const goStyle = new RegExp(`^-(${names.join('|')})(=|$)`);
  const args = argv.map((a) => (goStyle.test(a) ? `-${a}` : a));
  const options = Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
  return parseArgs({ args, options, strict: true }).values as Partial<Record<N, string>>;
}
