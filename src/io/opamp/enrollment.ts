// Enrollment tokens (docs/security.md): when `agents.tokens` is set, every OpAMP request, WebSocket
// upgrade or plain-HTTP POST, must carry `Authorization: Bearer TOKEN` whose SHA-256 is one of them,
// or it is refused with 401 and `WWW-Authenticate: Bearer` (the OpAMP specification's rule) before
// anything of it is read. Only hashes are configured and compared: a token never appears in the
// configuration, a log line or a metric. A token's optional selector bounds what an agent using it
// may claim to be (the handler checks each description against it). Pure but for hashing.

import { createHash } from 'node:crypto';
import { parseSelector, type Selector } from '../../projections/filter/selector.ts';
import type { EnrollmentToken } from '../config/schema.ts';

/** Why the OpAMP listener refused a request (svc_opamp_refused_total{reason}). */
export type EnrollmentRefusal = 'missing_credential' | 'unknown_credential';

export type EnrollmentCheck =
  /** `token`: the name of the token presented; undefined when no token is configured (open mode). */
  | {
      readonly ok: true;
      readonly token: string | undefined;
      readonly selector?: Selector;
      /** The token may declare a gateway (agents.tokens[].gateway). */
      readonly gateway?: boolean;
    }
  | { readonly ok: false; readonly reason: EnrollmentRefusal };

export interface Enrollment {
  /** True when tokens are configured and requests must present one. */
  readonly required: boolean;
  /** Checks a request's Authorization header. */
  check(authorization: string | undefined): EnrollmentCheck;
}

const open: EnrollmentCheck = Object.freeze({ ok: true, token: undefined });
const missing: EnrollmentCheck = Object.freeze({ ok: false, reason: 'missing_credential' });
const unknown: EnrollmentCheck = Object.freeze({ ok: false, reason: 'unknown_credential' });

/** A token's answer, made once: its name, and its selector when it has one. */
function granted(token: EnrollmentToken): EnrollmentCheck {
  const gateway = token.gateway === true;
  if (token.selector === undefined) return Object.freeze({ ok: true, token: token.name, gateway });
  const parsed = parseSelector(token.selector);
  // The configuration schema has checked it; a token that slipped through admits nothing.
  if (!parsed.ok) throw new Error(`agents.tokens ${token.name}: ${parsed.error}`);
  return Object.freeze({ ok: true, token: token.name, selector: parsed.value, gateway });
}

/**
 * Headers that presented a configured token, remembered with their answer: a plain-HTTP agent
 * sends the same header with every poll, and hashing it each time was most of what authentication
 * cost per message. Only accepted headers are kept (an attacker's guesses are hashed every time and
 * never fill it); when full it starts over (a token rotation leaves old headers behind).
 */
export const knownHeadersMax = 256;

export function createEnrollment(tokens: readonly EnrollmentToken[]): Enrollment {
  const byHash = new Map(tokens.map((t) => [t.sha256, granted(t)]));
  const known = new Map<string, EnrollmentCheck>();
  return {
    required: byHash.size > 0,
    check(authorization) {
      if (byHash.size === 0) return open;
      if (authorization === undefined) return missing;
      const remembered = known.get(authorization);
      if (remembered !== undefined) return remembered;
      const match = /^Bearer +(\S+) *$/i.exec(authorization);
      if (match === null) return missing;
      const answer = byHash.get(createHash('sha256').update(match[1]!).digest('hex'));
      if (answer === undefined) return unknown;
      if (known.size >= knownHeadersMax) known.clear();
      known.set(authorization, answer);
      return answer;
    },
  };
}
