// Config bodies repeat across a fleet: agents run the configs they are given, so thousands report
// the same effective config. A body seen recently is handed out as the one string already held, not
// kept once per agent: an agent's record then costs its own fields, not another copy of a config
// (and the garbage collector copies one string fewer per agent as records age). The table is two
// generations of at most `maxChars` characters each: when the current one fills up it becomes the
// previous one and the one before is dropped, so the table alone never holds more than twice that,
// and a body still in use is kept alive by the agents that hold it, not by the table.
//
// Bodies arrive as UTF-8 bytes. The last few distinct bodies are also kept as bytes (a copy, never a
// view of a read buffer), so a body equal to one of them is answered by a byte comparison, without
// decoding a string only to look it up and drop it.

import { Buffer } from 'node:buffer';

export interface SharedText {
  /** `text` itself, or an equal string handed out before. */
  share(text: string): string;
  /** The UTF-8 text of `bytes` (invalid sequences as U+FFFD), shared as share() does. */
  shareUtf8(bytes: Uint8Array): string;
  /** Characters the table holds (both generations). */
  held(): number;
  /** How many times shareUtf8 had to decode its bytes (a recent body is not decoded again). */
  decodes(): number;
}

/** Distinct bodies kept as bytes; a fleet reports few at a time (one per config in force). */
const recentBodies = 8;
/** Larger bodies are decoded every time: the byte copies stay under 8 × 64 KiB. */
const maxRecentBytes = 64 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: false });

export function createSharedText(options: { maxChars: number; maxTextChars: number }): SharedText {
  let current = new Map<string, string>();
  let previous = new Map<string, string>();
  let chars = 0;
  let previousChars = 0;
  /** The last distinct bodies decoded, in a ring: `oldest` is the slot the next one replaces. */
  const recent: { bytes: Uint8Array; text: string }[] = [];
  let oldest = 0;
  let decodes = 0;

  function share(text: string): string {
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
  }

  function shareUtf8(bytes: Uint8Array): string {
    for (let i = 0; i < recent.length; i++) {
      const entry = recent[i]!;
      if (entry.bytes.length === bytes.length && Buffer.compare(entry.bytes, bytes) === 0) return entry.text;
    }
    decodes++;
    const text = share(utf8.decode(bytes));
    if (bytes.length > 0 && bytes.length <= maxRecentBytes) {
      recent[oldest] = { bytes: new Uint8Array(bytes), text };
      oldest = (oldest + 1) % recentBodies;
    }
    return text;
  }

  return {
    share,
    shareUtf8,
    held: () => chars + previousChars,
    decodes: () => decodes,
  };
}
