// How the handler answers a readable message that a rule refuses (docs/security.md "Refusals of the
// OpAMP listener"): nothing of it is folded, the reason is counted in svc_opamp_refused_total, and the
// agent is told why in a ServerErrorResponse. Over plain HTTP the status says it too where HTTP has a
// word for it: 401 for a revoked or unrecorded credential, 403 for a credential that may not do what
// it asked (speak for an id its certificate does not name, declare a gateway), 503 with Retry-After
// when the service cannot take the agent now; every other refusal is a 200 carrying the BadRequest,
// as OpAMP has it.

import type { Encoder } from './codec.ts';
import type { OpampConnection } from './connection.ts';

const BadRequest = 1;
const Unavailable = 2;
/** What a refused agent is told to wait before it tries again (OpAMP recommends at least 30 s). */
export const retryAfterSeconds = 30;

/**
 * Refusals an agent should retry later: ServerErrorResponse Unavailable, 503 over HTTP. The reasons
 * of the others: messageRules.ts, agentAdmission.ts.
 */
const unavailable: ReadonlySet<string> = new Set(['max_agents', 'credential_store_unavailable']);
/** Refusals of what the credential may never do (issue 29): 403 over plain HTTP. */
const forbidden: ReadonlySet<string> = new Set(['uid_not_in_certificate', 'gateway_not_allowed']);

export type RefusalResult =
  | { readonly ok: true; readonly reply: Uint8Array }
  | {
      readonly ok: false;
      readonly reply: Uint8Array;
      readonly error: string;
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
    };

/** The answer to a message refused for `reason` (a limit's name for report limits), telling `text`. */
export function refusalReply(
  encoder: Encoder,
  connection: OpampConnection,
  uidBytes: Uint8Array,
  reason: string,
  text: string,
): RefusalResult {
  const retry = unavailable.has(reason);
  const reply = encoder.encode(
    {
      instanceUid: uidBytes,
      errorResponse: {
        type: retry ? Unavailable : BadRequest,
        errorMessage: text,
        ...(retry ? { retryInfo: { retryAfterNanoseconds: retryAfterSeconds * 1e9 } } : {}),
      },
    },
    connection.replyHeadroom,
  );
  if (retry)
    return {
      ok: false,
      reply,
      error: text,
      status: 503,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    };
  if (forbidden.has(reason)) return { ok: false, reply, error: text, status: 403, headers: {} };
  if (reason === 'revoked' || reason === 'certificate_unrecorded')
    return { ok: false, reply, error: text, status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
  return { ok: true, reply };
}
