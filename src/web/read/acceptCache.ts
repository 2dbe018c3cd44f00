// Which of an attribute column's distinct values a matcher accepts, kept across requests. A column's
// values only grow (attributeColumns.ts appends a value the first time an agent reports it, and
// starts a new array when it starts afresh), so an answer per value stays true: a repeated list
// tests only the values that arrived since. At 100,000 agents with a distinct host name each, a
// regex list tested all 100,000 names with RE2 on every request. Pure data structure.

import type { ValueTest } from '../../projections/filter/compileMatcher.ts';

export interface AcceptCache {
  /** Per value id of `values`: 1 when `test` (the matcher `text`) accepts the value. */
  accepts(values: readonly (string | undefined)[], text: string, test: ValueTest): Uint8Array;
}

interface Answers {
  accept: Uint8Array;
  /** Values tested so far (a prefix of the column's values). */
  tested: number;
}

/** `perColumn` bounds the matchers remembered per column (the oldest are forgotten first). */
export function createAcceptCache(perColumn = 16): AcceptCache {
  const byColumn = new WeakMap<readonly (string | undefined)[], Map<string, Answers>>();
  return {
    accepts(values, text, test) {
      let answers = byColumn.get(values);
      if (answers === undefined) byColumn.set(values, (answers = new Map<string, Answers>()));
      let a = answers.get(text);
      if (a === undefined) {
        if (answers.size >= perColumn) answers.delete(answers.keys().next().value!);
        a = { accept: new Uint8Array(values.length), tested: 0 };
        answers.set(text, a);
      }
      if (a.tested < values.length) {
        if (a.accept.length < values.length) {
          const grown = new Uint8Array(Math.max(values.length, a.accept.length * 2));
          grown.set(a.accept.subarray(0, a.tested));
          a.accept = grown;
        }
        for (let i = a.tested; i < values.length; i++) a.accept[i] = test(values[i]) ? 1 : 0;
        a.tested = values.length;
      }
      return a.accept;
    },
  };
}
