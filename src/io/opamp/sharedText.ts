// Config bodies repeat across a fleet: agents run the configs they are given, so thousands report
// the same effective config. A body seen recently is handed out as the one string already held, not
// kept once per agent: an agent's record then costs its own fields, not another copy of a config
// (and the garbage collector copies one string fewer per agent as records age). The table is two
// generations of at most `maxChars` characters each: when the current one fills up it becomes the
// previous one and the one before is dropped, so the table alone never holds more than twice that,
// and a body still in use is kept alive by the agents that hold it, not by the table.

export interface SharedText {
  /** `text` itself, or an equal string handed out before. */
  share(text: string): string;
  /** Characters the table holds (both generations). */
  held(): number;
}

export function createSharedText(options: { maxChars: number; maxTextChars: number }): SharedText {
  let current = new Map<string, string>();
  let previous = new Map<string, string>();
  let chars = 0;
  let previousChars = 0;
  return {
    share(text) {
      if (text.length > options.maxTextChars || text.length === 0) return text;
      const held = current.get(text);
      if (held !== undefined) return held;
      const kept = previous.get(text) ?? text;
      if (chars + text.length > options.maxChars) {
        previous = current;
        previousChars = chars;
        current = new Map();
        chars = 0;
      }
      current.set(kept, kept);
      chars += kept.length;
      return kept;
    },
    held: () => chars + previousChars,
  };
}
