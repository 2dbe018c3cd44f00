// Who may present an instance id (issue 22), decided from what the store holds. Pure: the in-memory
// store applies it directly; the PostgreSQL store applies it after an INSERT ... ON CONFLICT DO
// NOTHING lost to an existing row, and makes a takeover conditional on the row it read.

import { sameHolder, type AgentCredential } from './agentCredential.ts';
import type { BindOutcome, Binding } from './credentialStore.ts';

export type BindDecision =
  /** No binding yet: this credential becomes the holder. */
  | { readonly action: 'insert' }
  /** The holder again (a renewed certificate included): record its latest serial. */
  | { readonly action: 'same' }
  /**
   * A certificate the agent CA issued for this very id replaces the holder it was issued to (an agent
   * that enrolled with a token moves to its certificate; the token no longer reaches the id).
   */
  | { readonly action: 'takeover' }
  /** Refused: the id is revoked, or another credential holds it. */
  | { readonly action: 'refuse'; readonly outcome: Exclude<BindOutcome, { outcome: 'bound' }> };

/**
 * @param serialRevokedAt when the presented certificate's serial was revoked, else null. The caller
 *   guarantees that an `agent_certificate` credential names this id (AgentCa.issuedAgent).
 */
export function decideBind(
  existing: Binding | undefined,
  credential: AgentCredential,
  serialRevokedAt: number | null,
): BindDecision {
  const revokedAt = existing?.revokedAt ?? serialRevokedAt;
  if (revokedAt !== null) return { action: 'refuse', outcome: { outcome: 'revoked', revokedAt } };
  if (existing === undefined || existing.credential === null) return { action: 'insert' };
  if (sameHolder(existing.credential, credential)) return { action: 'same' };
  if (credential.kind === 'agent_certificate') return { action: 'takeover' };
  return { action: 'refuse', outcome: { outcome: 'bound_elsewhere', holder: existing.credential } };
}
