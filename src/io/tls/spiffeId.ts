// SPIFFE identity of a client certificate (SPEC "Authentication"; format decided in docs/security.md):
// the certificate must carry exactly one URI SAN, and it must be a SPIFFE ID with a trust domain and
// a path. None, several, another scheme or a malformed one is no identity. Pure.

/** Why a certificate yields no identity (shown in the 403 body and the debug log). */
export type SpiffeFailure =
  'no URI SAN' | 'several URI SANs' | 'URI SAN is not a spiffe:// ID' | 'malformed SPIFFE ID';

export type SpiffeResult =
  { readonly ok: true; readonly id: string } | { readonly ok: false; readonly reason: SpiffeFailure };

// SPIFFE ID standard, section 2: lowercase trust domain of [a-z0-9.-_]; path segments of
// [A-Za-z0-9.-_], none empty, '.' or '..'; no trailing slash, query, fragment, port or userinfo.
const trustDomain = /^[a-z0-9._-]+$/;
const segment = /^[A-Za-z0-9._-]+$/;
const maxLength = 2048;

export function parseSpiffeId(uri: string): string | undefined {
  if (uri.length > maxLength || !uri.startsWith('spiffe://')) return undefined;
  const rest = uri.slice('spiffe://'.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined; // no path, or no trust domain
  if (!trustDomain.test(rest.slice(0, slash))) return undefined;
  const segments = rest.slice(slash + 1).split('/');
  const valid = segments.every((s) => segment.test(s) && s !== '.' && s !== '..');
  return valid ? uri : undefined;
}

/**
 * The entries of Node's `subjectaltname` text ("DNS:a, URI:spiffe://x/y"). Node quotes a value that
 * holds a comma, quote or other special character as a JSON string (since the CVE-2021-44532 fix),
 * so a hostile SAN cannot smuggle a second entry in through a comma.
 */
export function subjectAltNames(text: string): { readonly type: string; readonly value: string }[] {
  const out: { type: string; value: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(':', i);
    if (colon < 0) break;
    const type = text.slice(i, colon);
    let value: string;
    let end: number;
    if (text[colon + 1] === '"') {
      const close = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(colon + 1));
      if (!close) break;
      value = JSON.parse(close[0]) as string;
      end = colon + 1 + close[0].length;
    } else {
      const comma = text.indexOf(', ', colon + 1);
      end = comma < 0 ? text.length : comma;
      value = text.slice(colon + 1, end);
    }
    out.push({ type, value });
    i = end + 2; // skip ", "
  }
  return out;
}

export function spiffeIdOf(subjectAltName: string | undefined): SpiffeResult {
  const uris = subjectAltNames(subjectAltName ?? '').filter((e) => e.type === 'URI');
  if (uris.length === 0) return { ok: false, reason: 'no URI SAN' };
  if (uris.length > 1) return { ok: false, reason: 'several URI SANs' };
  const uri = uris[0]!.value;
  if (!/^spiffe:\/\//i.test(uri)) return { ok: false, reason: 'URI SAN is not a spiffe:// ID' };
  const id = parseSpiffeId(uri);
  return id === undefined ? { ok: false, reason: 'malformed SPIFFE ID' } : { ok: true, id };
}
