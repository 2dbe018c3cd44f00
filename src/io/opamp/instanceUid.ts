// instance_uid at the edge (OPAMP.md pitfall 2): 16 bytes → canonical lowercase UUID; 26 bytes of
// Crockford base32 → the ULID string as sent; anything else is invalid. Converted once, here.

import type { InstanceUid } from '../../events/ids.ts';

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const ulid = /^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/;

export function toInstanceUid(bytes: Uint8Array): InstanceUid | undefined {
  if (bytes.length === 16) {
    let s = '';
    for (let i = 0; i < 16; i++) {
      s += hex[bytes[i] ?? 0];
      if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
    }
    return s as InstanceUid;
  }
  if (bytes.length === 26) {
    const text = String.fromCharCode(...bytes);
    return ulid.test(text) ? (text as InstanceUid) : undefined;
  }
  return undefined;
}

/** The bytes an agent with this id sends (tools and specs). */
export function instanceUidBytes(uid: string): Uint8Array {
  if (uid.length === 26) return new TextEncoder().encode(uid);
  return Uint8Array.from(Buffer.from(uid.replaceAll('-', ''), 'hex'));
}
