// The one list syntax of the filter language (issue 30): matchers separated by commas, all of which
// must hold. Every box that takes a filter reads it with this parser: the fleet search box and the
// API's `match` (each value is a list), a config's selector, a job's filter. Errors say at which
// character (1-based) the problem is, and carry the 0-based index for the UI to point at. Pure.
//
// Splitting respects quoted values: a value that starts with a quote runs to the matching quote that
// is followed only by spaces and then a comma or the end, so `a="x, y", b=z` is two matchers and a
// quote inside a quoted regex (`msg=~"it's .*", b=z`) ends nothing; an unquoted value cannot hold a
// comma.

import { parseMatcher, type Matcher, type Parsed } from './matcher.ts';

export interface PlacedMatcher {
  readonly matcher: Matcher;
  /** Where the matcher's text starts in the list (0-based). */
  readonly start: number;
}

/** At most this many matchers in one list. */
export const maxListMatchers = 32;

function operatorEnd(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === ',') return -1;
    if (c === '=') return text[j + 1] === '~' ? j + 2 : j + 1;
    if (c === '!' && (text[j + 1] === '=' || text[j + 1] === '~')) return j + 2;
  }
  return -1;
}

/** The end (exclusive) of the matcher that starts at `start`, and where the next one starts. */
function matcherEnd(text: string, start: number): { end: number; next: number } {
  const op = operatorEnd(text, start);
  const comma = (from: number) => {
    const at = text.indexOf(',', from);
    return at < 0 ? { end: text.length, next: text.length } : { end: at, next: at + 1 };
  };
  if (op < 0) return comma(start);
  let k = op;
  while (text[k] === ' ') k++;
  const quote = text[k];
  if (quote !== '"' && quote !== "'") return comma(op);
  for (let m = k + 1; m < text.length; m++) {
    if (text[m] !== quote) continue;
    let n = m + 1;
    while (text[n] === ' ') n++;
    if (n >= text.length) return { end: text.length, next: text.length };
    if (text[n] === ',') return { end: n, next: n + 1 };
  }
  return { end: text.length, next: text.length }; // unterminated: parseMatcher reports it
}

/** The list's non-blank parts with where each starts. */
export function splitMatcherList(text: string): { text: string; start: number }[] {
  const parts: { text: string; start: number }[] = [];
  for (let i = 0; i < text.length;) {
    const { end, next } = matcherEnd(text, i);
    const part = text.slice(i, end);
    if (part.trim() !== '') parts.push({ text: part, start: i });
    i = next;
  }
  return parts;
}

/** The problem with `at` moved into the whole list, and the message saying which character. */
export function placedError(error: string, at: number): { ok: false; error: string; at: number } {
  return { ok: false, error: `${error} (at character ${at + 1})`, at };
}

export function parseMatcherList(text: string): Parsed<PlacedMatcher[]> {
  const parts = splitMatcherList(text);
  if (parts.length > maxListMatchers)
    return placedError(
      `${parts.length} matchers in one list; at most ${maxListMatchers}`,
      parts[maxListMatchers]!.start,
    );
  const out: PlacedMatcher[] = [];
  for (const part of parts) {
    const parsed = parseMatcher(part.text);
    if (!parsed.ok) return placedError(parsed.error, part.start + (parsed.at ?? 0));
    const lead = part.text.length - part.text.trimStart().length;
    out.push({ matcher: parsed.value, start: part.start + lead });
  }
  return { ok: true, value: out };
}
