// Compiles a parsed matcher into a test of one attribute value. Regexes use RE2 syntax through re2js, a
// linear-time RE2 port, so no user input ever reaches JavaScript's backtracking RegExp; they match the
// full value (testExact), as SPEC "GET /api/agents" requires.

// re2js is pure JavaScript (no IO), so the pure core imports it like any other function; it used to
// be required lazily through node:module, which reached outside the core for 0.8 MiB of idle RSS.

import { RE2JS } from 're2js';
import type { AgentState } from '../agent/agentState.ts';
import { formatMatcher, type Matcher, type Parsed } from './matcher.ts';

export type AgentPredicate = (agent: AgentState) => boolean;

const utf8 = new TextEncoder();

/** A regex value longer than this (UTF-8 bytes) is refused before compiling. */
export const maxRegexBytes = 1024;

function compileRegex(m: Matcher): Parsed<RE2JS> {
  if (utf8.encode(m.value).length > maxRegexBytes) {
    return {
      ok: false,
      error: `regex of matcher on ${JSON.stringify(m.key)} is longer than ${maxRegexBytes} bytes`,
    };
  }
  try {
    return { ok: true, value: RE2JS.compile(m.value) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `invalid regex in matcher ${formatMatcher(m)}: ${reason}` };
  }
}

/** Distinct values remembered per compiled regex: fleets repeat values (service names, versions). */
const memoLimit = 4096;

/** A regex test that remembers its answer for up to memoLimit distinct values (one request's filter). */
function memoize(regex: RE2JS): (value: string) => boolean {
  const seen = new Map<string, boolean>();
  return (value) => {
    let hit = seen.get(value);
    if (hit === undefined) {
      hit = regex.testExact(value);
      if (seen.size < memoLimit) seen.set(value, hit);
    }
    return hit;
  };
}

/** A test of one attribute value; `undefined` means the agent lacks the key. */
export type ValueTest = (value: string | undefined) => boolean;

/**
 * `=` and `=~` need the key to be present; `!=` and `!~` also match agents that lack it (issue 4).
 */
export function compileValueTest(m: Matcher): Parsed<ValueTest> {
  const { value } = m;
  switch (m.op) {
    case '=':
      return { ok: true, value: (v) => v === value };
    case '!=':
      return { ok: true, value: (v) => v !== value };
    case '=~':
    case '!~': {
      const re = compileRegex(m);
      if (!re.ok) return re;
      const test = memoize(re.value);
      const positive = m.op === '=~';
      return { ok: true, value: (v) => (v === undefined ? !positive : test(v) === positive) };
    }
    default: {
      const _exhaustive: never = m.op;
      return { ok: false, error: `unknown operator in ${formatMatcher(m)}` };
    }
  }
}
