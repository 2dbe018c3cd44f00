// Whether the credential a connection presented may speak for an instance id (issue 22, issue 29;
// docs/security.md "The binding rule"). The rule is decideBind's (pure); the credential store
// (PostgreSQL, else memory) applies it to what it holds, and it is asynchronous. So that the hot path
// stays a comparison:
//  - a certificate that names another id is refused here at once, without the store (notNamed);
//  - the ids a WebSocket was admitted for are remembered by connectionOwners.ts (the handler asks it
//    before asking here, and records what this admits); a revocation closes every connection
//    admitted for the id (revocationCloser.ts), so nothing remembered there goes stale;
//  - here, for every connection: which credential holds each id, for `cacheMs` (plain-HTTP agents
//    open a connection per poll). A revocation on any replica forgets the id at once; a change of
//    holder made on another replica (an agent moving to its own certificate) is seen here at most
//    `cacheMs` later.
// Open mode (no credential on the connection) never asks the store: there, only a live connection
// holds an id (connectionOwners.ts).
// Contract: admit() is called in message order per connection; the caller waits for a promise before
// handling the connection's next message. The promise never rejects: a store that fails is a refusal.

import type { InstanceUid } from '../../events/ids.ts';
import { sameHolder, type AgentCredential } from '../../projections/identity/agentCredential.ts';
import type { BindOutcome, CredentialStore } from '../../projections/identity/credentialStore.ts';
import { notNamed } from '../../projections/identity/decideBind.ts';
import type { OpampConnection } from './connection.ts';
import type { ConnectionOwners } from './connectionOwners.ts';

/** Why an id was refused to a credential (reasons of svc_opamp_refused_total). */
export type AdmissionReason =
  | 'uid_bound_elsewhere'
  | 'uid_not_in_certificate'
  | 'certificate_unrecorded'
  | 'revoked'
  | 'credential_store_unavailable';

export interface AdmissionRefusal {
  readonly reason: AdmissionReason;
  /** For the agent (ServerErrorResponse) and the log; names no secret. */
  readonly text: string;
}

/** undefined: admitted. */
export type AdmitOutcome = AdmissionRefusal | undefined;

export interface AgentAdmission {
  /**
   * Whether `connection`'s credential may speak for `uid` (the caller has found it not admitted on
   * the connection yet): synchronous when known without the store; a promise when the store is asked.
   */
  admit(connection: OpampConnection, uid: InstanceUid, at: number): AdmitOutcome | Promise<AdmitOutcome>;
  /** The id's credential was revoked: nothing remembered of it here may admit it again. */
  forget(uid: InstanceUid): void;
}

export interface AgentAdmissionOptions {
  readonly store: Pick<CredentialStore, 'bind'>;
  /** How long a holder read from the store admits it here without asking again. */
  readonly cacheMs: number;
  /** Ids remembered at most (the oldest go first). */
  readonly cacheSize: number;
  /** The store failed (logged by the host; the message is refused). */
  readonly onStoreError: (error: unknown) => void;
}

interface Held {
  readonly credential: AgentCredential;
  readonly until: number;
}

/** Refusals made once, shared by every message they answer. */
const revoked: AdmissionRefusal = Object.freeze({
  reason: 'revoked',
  text: 'the credential of this instance_uid was revoked',
});
const unrecorded: AdmissionRefusal = Object.freeze({
  reason: 'certificate_unrecorded',
  text: 'the service holds no record of this certificate: enroll again with a token',
});
const notInCertificate = (named: string): AdmissionRefusal => ({
  reason: 'uid_not_in_certificate',
  text: `the certificate speaks only for the instance_uid it names (${named})`,
});
const storeDown: AdmissionRefusal = Object.freeze({
  reason: 'credential_store_unavailable',
  text: 'the binding of instance_uid to its credential could not be checked; try again later',
});

export function createAgentAdmission(options: AgentAdmissionOptions): AgentAdmission {
  const holders = new Map<InstanceUid, Held>();
  /**
   * Revocations heard so far. A bind that was in flight while one was heard is asked again: it may
   * have read the binding before the revocation, when the connection closer found nothing to close.
   */
  let revocations = 0;

  function hold(uid: InstanceUid, credential: AgentCredential, at: number): void {
    holders.delete(uid);
    if (holders.size >= options.cacheSize) holders.delete(holders.keys().next().value!);
    holders.set(uid, { credential, until: at + options.cacheMs });
  }

  async function ask(uid: InstanceUid, credential: AgentCredential, at: number): Promise<AdmitOutcome> {
    let bound: BindOutcome;
    try {
      let heard: number;
      let attempts = 0;
      do {
        heard = revocations;
        bound = await options.store.bind(uid, credential, at);
      } while (heard !== revocations && bound.outcome === 'bound' && ++attempts < 3);
    } catch (error) {
      options.onStoreError(error);
      return storeDown;
    }
    switch (bound.outcome) {
      case 'revoked':
        return revoked;
      case 'bound_elsewhere':
        return {
          reason: 'uid_bound_elsewhere',
          text: `instance_uid belongs to another credential (${bound.holder.kind})`,
        };
      case 'not_named':
        return notInCertificate(bound.named);
      case 'unrecorded':
        return unrecorded;
      case 'bound':
        hold(uid, credential, at);
        return undefined;
    }
  }

  return {
    admit(connection, uid, at) {
      const credential = connection.admission?.credential;
      if (credential === undefined) return undefined;
      const other = notNamed(credential, uid);
      if (other !== undefined) return notInCertificate(credential.name);
      const held = holders.get(uid);
      if (held !== undefined && held.until > at && sameHolder(held.credential, credential)) return undefined;
      return ask(uid, credential, at);
    },
    forget(uid) {
      revocations++;
      holders.delete(uid);
    },
  };
}

/**
 * The one admission path of a message (the handler's; the binding property spec's): an id the
 * connection was admitted for already is admitted; otherwise `admission` decides, and what it admits
 * for a connection with a credential is recorded with the connection's other holdings.
 */
export function admitOn(
  admission: AgentAdmission,
  owners: Pick<ConnectionOwners, 'isAdmitted' | 'admit' | 'revokeAdmissions'>,
  connection: OpampConnection,
  uid: InstanceUid,
  at: number,
): AdmitOutcome | Promise<AdmitOutcome> {
  if (owners.isAdmitted(uid, connection)) return undefined;
  const outcome = admission.admit(connection, uid, at);
  const record = (refusal: AdmitOutcome): AdmitOutcome => {
    const credential = connection.admission?.credential;
    if (refusal !== undefined || credential === undefined) return refusal;
    // The id is this credential's now: a connection of the holder it moved from (a token whose agent
    // moved to its certificate) is admitted for it no longer, and is asked again (and refused).
    owners.revokeAdmissions(uid, (other) => {
      const theirs = other.admission?.credential;
      return theirs !== undefined && sameHolder(theirs, credential);
    });
    owners.admit(uid, connection);
    return refusal;
  };
  return outcome instanceof Promise ? outcome.then(record) : record(outcome);
}
