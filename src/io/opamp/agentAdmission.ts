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
// A message that waits behind another on its socket may be announced with ahead() (a gateway's burst
// of new ids): its id is asked of the store at once, and its admit() later finds the answer (held) or
// the ask still in flight (the same promise), so the store sees many ids together (one statement on
// PostgreSQL: pgBindBatch.ts) instead of one round trip after another. Asks for one id with one
// credential are never made twice at a time.

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
  /**
   * `connection`'s message for `uid` waits behind others: ask the store now, so that admit() finds
   * the answer. Refuses nothing and admits nothing by itself.
   */
  ahead(connection: OpampConnection, uid: InstanceUid, at: number): void;
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

interface Asking {
  readonly credential: AgentCredential;
  readonly answer: Promise<AdmitOutcome>;
}

/** The very credential (a renewed certificate's serial included): only then is one ask another's. */
const identical = (a: AgentCredential, b: AgentCredential): boolean =>
  a.kind === b.kind && a.name === b.name && a.serial === b.serial;

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
  /** Asks in flight (at most one per id; bounded by the messages waiting on sockets). */
  const asking = new Map<InstanceUid, Asking>();
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

  /** The ask in flight for this id and credential, else a new one (remembered until it settles). */
  function asked(uid: InstanceUid, credential: AgentCredential, at: number): Promise<AdmitOutcome> {
    const current = asking.get(uid);
    if (current !== undefined && identical(current.credential, credential)) return current.answer;
    const answer = ask(uid, credential, at);
    // Another credential for an id in flight asks apart (the store orders them); the first stays remembered.
    if (current !== undefined) return answer;
    asking.set(uid, { credential, answer });
    void answer.then(() => asking.get(uid)?.answer === answer && asking.delete(uid));
    return answer;
  }

  /** What is known without the store: a refusal, admitted (undefined), or `ask` when it must be asked. */
  function known(connection: OpampConnection, uid: InstanceUid, at: number): AdmitOutcome | 'ask' {
    const credential = connection.admission?.credential;
    if (credential === undefined) return undefined;
    const other = notNamed(credential, uid);
    if (other !== undefined) return notInCertificate(credential.name);
    const held = holders.get(uid);
    if (held !== undefined && held.until > at && sameHolder(held.credential, credential)) return undefined;
    return 'ask';
  }

  return {
    admit(connection, uid, at) {
      const outcome = known(connection, uid, at);
      return outcome === 'ask' ? asked(uid, connection.admission!.credential!, at) : outcome;
    },
    ahead(connection, uid, at) {
      if (known(connection, uid, at) === 'ask') void asked(uid, connection.admission!.credential!, at);
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
