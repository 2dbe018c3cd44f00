// Who may speak for an instance id (issue 22, issue 29; docs/security.md "The binding rule"), as one
// pure decision over what the connection presented, the id its message names, the id's binding and
// the record of the certificate presented. The admission asks it twice: before the store with what it
// remembers (a credential that names another id is refused without a round trip), and through the
// store, which applies it to the rows it read (the in-memory store directly; the PostgreSQL store
// after an INSERT ... ON CONFLICT DO NOTHING lost to an existing row, making a takeover conditional
// on the row it read).

import { parseInstanceUid, type InstanceUid } from '../../events/ids.ts';
import { sameHolder, type AgentCredential } from './agentCredential.ts';
import type { BindOutcome, Binding, IssuedCertificate } from './credentialStore.ts';

export type BindDecision =
  /** No credential (open mode): nothing is recorded; only a live connection holds the id. */
  | { readonly action: 'open' }
  /** No binding yet: this credential becomes the holder. */
  | { readonly action: 'insert' }
  /** The holder again (a renewed certificate included): record its latest serial. */
  | { readonly action: 'same' }
  /**
   * The holder moves to a certificate the agent CA issued to it for this very id (an agent that
   * enrolled with a token moves to its certificate; the token no longer reaches the id).
   */
  | { readonly action: 'takeover' }
  /** Refused: see the outcome. */
  | { readonly action: 'refuse'; readonly outcome: BindRefusal };

export type BindRefusal =
  | Exclude<BindOutcome, { outcome: 'bound' }>
  /** The certificate names another instance id than the message's (uid_not_in_certificate). */
  | { readonly outcome: 'not_named'; readonly named: string }
  /** An agent-CA certificate the store holds no record of: its bounds are unknown (certificate_unrecorded). */
  | { readonly outcome: 'unrecorded' };

export interface BindAsk {
  readonly uid: InstanceUid;
  /** What the connection authenticated with; undefined in open mode. */
  readonly credential: AgentCredential | undefined;
  /** The id's binding, if any. */
  readonly existing: Binding | undefined;
  /**
   * The store's record of the presented certificate's serial (agent certificates), if any. A record
   * for another id is no record of this one.
   */
  readonly certificate: IssuedCertificate | undefined;
}

const agentPath = /^spiffe:\/\/[^/]+\/agent\/([^/]+)$/;

/**
 * The instance id a certificate speaks for: the one its SPIFFE id names (`spiffe://DOMAIN/agent/UID`,
 * as the agent CA writes them; an OpAMP client certificate may name one the same way). `null` for an
 * agent-CA certificate that names none (it speaks for nothing); undefined when the credential is not
 * bound to one id (a token, a client certificate naming no agent).
 */
export function namedUid(credential: AgentCredential): InstanceUid | null | undefined {
  if (credential.kind === 'token') return undefined;
  const match = agentPath.exec(credential.name);
  const uid = match === null ? undefined : parseInstanceUid(match[1]!);
  if (uid !== undefined) return uid;
  return credential.kind === 'agent_certificate' ? null : undefined;
}

/** The refusal of a credential for `uid` known without the store (the id it names is another), else undefined. */
export function notNamed(credential: AgentCredential, uid: InstanceUid): BindRefusal | undefined {
  const named = namedUid(credential);
  if (named === undefined || named === uid) return undefined;
  return { outcome: 'not_named', named: credential.name };
}

/**
 * **The binding rule.** A credential speaks for an id only if: the id is not revoked (nor the
 * certificate presented); a certificate that names an id names this one; an agent-CA certificate is
 * on record (its enrolling credential's bounds travel with the record); and the id is unbound, or
 * bound to this same holder, or bound to the credential the certificate was issued to (the holder
 * moving to its own certificate). Everything else is refused; no credential ever takes an id from
 * another holder.
 */
export function decideBind(ask: BindAsk): BindDecision {
  const { uid, credential, existing } = ask;
  const certificate = ask.certificate?.uid === uid ? ask.certificate : undefined;
  const revokedAt = existing?.revokedAt ?? certificate?.revokedAt ?? null;
  if (revokedAt !== null) return { action: 'refuse', outcome: { outcome: 'revoked', revokedAt } };
  if (credential === undefined) {
    // No credential never reaches an id a credential holds.
    if (existing?.credential != null)
      return { action: 'refuse', outcome: { outcome: 'bound_elsewhere', holder: existing.credential } };
    return { action: 'open' };
  }
  const other = notNamed(credential, uid);
  if (other !== undefined) return { action: 'refuse', outcome: other };
  if (credential.kind === 'agent_certificate' && certificate === undefined)
    return { action: 'refuse', outcome: { outcome: 'unrecorded' } };
  if (existing === undefined || existing.credential === null) return { action: 'insert' };
  if (sameHolder(existing.credential, credential)) return { action: 'same' };
  const issuedTo = certificate?.issuedTo;
  if (
    credential.kind === 'agent_certificate' &&
    issuedTo !== null &&
    issuedTo !== undefined &&
    sameHolder(issuedTo, existing.credential)
  )
    return { action: 'takeover' };
  return { action: 'refuse', outcome: { outcome: 'bound_elsewhere', holder: existing.credential } };
}
