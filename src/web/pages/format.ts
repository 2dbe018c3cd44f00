// Pure formatting helpers shared by every template. Times are Unix milliseconds or the RFC 3339 text
// of the JSON views; `now` is passed in (the request's clock), never read here.

const pad = (n: number): string => String(n).padStart(2, '0');

export type Time = number | string | null | undefined;

/** Unix ms of a time given as ms or RFC 3339 text; null for a time never set. */
export function toMs(time: Time): number | null {
  const ms = typeof time === 'string' ? Date.parse(time) : time;
  return ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0 ? null : ms;
}

/** `2026-05-01 10:00:00 UTC`; an em dash for a time never set. */
export function utc(time: Time): string {
  const ms = toMs(time);
  if (ms === null) return '—';
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} UTC`;
}

/** Compact duration: `45s`, `12m 5s`, `3h 4m`, `2d 5h`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** `just now`, `12s ago`, `5m ago`, `3h ago`, `2d ago`; `in 3s` for small clock skew the other way. */
export function relative(time: Time, now: number): string {
  const ms = toMs(time);
  if (ms === null) return 'never';
  const delta = now - ms;
  if (Math.abs(delta) < 1000) return 'just now';
  if (delta < 0) return `in ${duration(-delta).split(' ')[0] ?? ''}`;
  return `${duration(delta).split(' ')[0] ?? ''} ago`;
}

/** The first block of a UUID (8 characters), or the first 10 of a ULID: enough to tell agents apart. */
export function shortId(uid: string): string {
  return uid.includes('-') ? uid.slice(0, 8) : uid.slice(0, 10);
}

export const count = (n: number): string => n.toLocaleString('en-US');

/** The first 12 hex digits of a SHA-256: enough to tell revisions and config hashes apart at a glance. */
export const shortHash = (hash: string): string => hash.slice(0, 12);

export const helpers = { utc, duration, relative, shortId, count, toMs, shortHash };
