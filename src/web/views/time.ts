// RFC 3339 UTC timestamps for views. A time never set is null (never a year-1 or 1970 date).

/** Unix milliseconds → RFC 3339 UTC with milliseconds; null for null/undefined. */
export function rfc3339FromMs(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

const nanosPerSecond = 1_000_000_000n;

/**
 * Unix nanoseconds (OpAMP health times) → RFC 3339 UTC keeping the nanoseconds, trailing zeros
 * trimmed as in Go's RFC3339Nano (`2024-05-01T10:00:00.123456789Z`). 0 means "not set" → null.
 */
export function rfc3339FromNanos(nanos: bigint): string | null {
  if (nanos <= 0n) return null;
  const seconds = nanos / nanosPerSecond;
  const fraction = nanos % nanosPerSecond;
  const d = new Date(Number(seconds) * 1000);
  if (Number.isNaN(d.getTime())) return null;
  const base = d.toISOString().slice(0, 19);
  const digits = fraction.toString().padStart(9, '0').replace(/0+$/, '');
  return digits === '' ? `${base}Z` : `${base}.${digits}Z`;
}
