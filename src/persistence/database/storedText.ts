// Text and JSON as PostgreSQL accepts them. PostgreSQL text cannot hold NUL, and jsonb rejects
// \u0000 and unpaired surrogates; one such string from an agent would fail the whole batch on every
// retry. So they are replaced (U+FFFD) before they leave the process: the agent stays storable.

const replacement = '\uFFFD';

export function storedText(s: string): string {
  return s.includes('\0') || !s.isWellFormed() ? s.toWellFormed().replaceAll('\0', replacement) : s;
}

function replacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'string') return storedText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.every(([k]) => storedText(k) === k)) return value;
    return Object.fromEntries(entries.map(([k, v]) => [storedText(k), v]));
  }
  return value;
}

/** JSON text for a jsonb column: bigints as decimal strings, every string and key made storable. */
export function storedJson(value: unknown): string {
  return JSON.stringify(value, replacer);
}

/** JSON.stringify escapes NUL as \u0000 and a lone surrogate as \udXXX: the only escapes jsonb refuses. */
const unstorableEscape = /\\u(?:0000|d[89a-f])/i;

/**
 * storedJson for values without bigints (attribute sets, packages), on the fast path: plain
 * JSON.stringify, and the cleaning replacer only when the output shows something to clean.
 */
export function storedPlainJson(value: unknown): string {
  const text = JSON.stringify(value);
  return unstorableEscape.test(text) ? storedJson(value) : text;
}

/** Largest instant PostgreSQL and Date both hold comfortably (9999-12-31T23:59:59.999Z), in ms. */
const maxMs = 253_402_300_799_999;

/** Unix ms for a timestamptz column, or null when unset or outside what the column can hold. */
export function storedMs(ms: number | null): number | null {
  return ms === null || !Number.isFinite(ms) || ms <= 0 || ms > maxMs ? null : ms;
}

/** OpAMP nanoseconds (0 = unset) → Unix ms with microsecond fraction for a timestamptz column. */
export function storedNanos(nanos: bigint): number | null {
  if (nanos <= 0n) return null;
  return storedMs(Number(nanos / 1000n) / 1000);
}

/** Back from a timestamptz read as Unix ms (microsecond fraction) to OpAMP nanoseconds. */
export function nanosFromMs(ms: number | null): bigint {
  return ms === null ? 0n : BigInt(Math.round(ms * 1000)) * 1000n;
}

/** A PostgreSQL array literal of text (`{"a","b"}`), so a text[] per row can travel in one text[] column. */
export function textArrayLiteral(items: readonly string[]): string {
  if (items.length === 0) return '{}';
  return `{${items.map((item) => `"${storedText(item).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
}
