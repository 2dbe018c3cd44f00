// The matcher grammar of the fleet filter language: `<key><op><value>` with `=`, `!=`, `=~`, `!~`.
// Pure text parsing; compiling a matcher into a predicate lives in compileMatcher.ts.
//
// Grammar (SPEC "GET /api/agents", issue 4):
// - the operator is the first `=`, `!=`, `=~` or `!~` in the text, so keys cannot contain `=` and
//   cannot contain `!` directly before `=` or `~`; values may contain anything;
// - spaces around the operator (and at both ends) are ignored;
// - a value whose first and last characters are the same quote (`"` or `'`) is quoted: the two quotes
//   are removed and nothing inside is unescaped. Quotes keep leading/trailing spaces and allow an
//   empty value; because the closing quote must be the last character, inner quotes need no escape.

export type MatchOp = '=' | '!=' | '=~' | '!~';

export interface Matcher {
  readonly key: string;
  readonly op: MatchOp;
  readonly value: string;
}

/** `at`: where in the text the problem is (0-based), when it is at one character. */
export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string; readonly at?: number };

export const isRegexOp = (op: MatchOp): boolean => op === '=~' || op === '!~';

function findOperator(text: string): { index: number; op: MatchOp } | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '=') return { index: i, op: next === '~' ? '=~' : '=' };
    if (c === '!' && (next === '=' || next === '~')) return { index: i, op: next === '=' ? '!=' : '!~' };
  }
  return undefined;
}

function unquote(raw: string): string {
  const first = raw[0];
  if (raw.length >= 2 && (first === '"' || first === "'") && raw.endsWith(first)) return raw.slice(1, -1);
  return raw;
}

export function parseMatcher(text: string): Parsed<Matcher> {
  const found = findOperator(text);
  if (found === undefined) {
    return {
      ok: false,
      error: `matcher ${JSON.stringify(text)} has no operator (use =, !=, =~ or !~)`,
      at: text.length - text.trimStart().length,
    };
  }
  const key = text.slice(0, found.index).trim();
  if (key === '')
    return {
      ok: false,
      error: `matcher ${JSON.stringify(text)} has no attribute key before ${found.op}`,
      at: found.index,
    };
  const afterOp = found.index + found.op.length;
  const rawValue = text.slice(afterOp).trim();
  const first = rawValue[0];
  if ((first === '"' || first === "'") && (rawValue.length < 2 || !rawValue.endsWith(first))) {
    return {
      ok: false,
      error: `matcher ${JSON.stringify(text)} has an unterminated ${first} quote`,
      at: text.indexOf(first, afterOp),
    };
  }
  return { ok: true, value: { key, op: found.op, value: unquote(rawValue) } };
}

/** The matcher as text again (canonical form, value always double-quoted); for messages and UIs. */
export const formatMatcher = (m: Matcher): string => `${m.key}${m.op}"${m.value}"`;
