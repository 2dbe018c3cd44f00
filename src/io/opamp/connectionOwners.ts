// Which live connection holds each agent, which agents each connection holds, which ids each
// connection was admitted for (its credential's binding to them is known: agentAdmission.ts) and for
// which of those a certificate was issued on it (certificateOffer.ts): the one record of agent ↔
// connection in the service, which revocation, close and eviction all use. The handler claims an
// agent for the connection its message came on, the config pusher walks the agents held, the close
// path releases a connection's agents (and disconnects exactly those), and the liveness sweep
// releases an agent it disconnects. The registry's `session.connectionId` is what the agent was last seen on (shown and stored); it is
// never consulted to decide who holds an agent.
//
// Only WebSockets hold agents: a plain-HTTP request ends with its reply. A message that arrives on
// another connection than the holder's takes the agent over (the agent reconnected before its old
// socket closed) when that connection presented a credential (whose binding to the id the admission
// checks: agentAdmission.ts) or the policy allows takeovers; otherwise (open mode, the service's
// policy) the claim is refused and nothing changes until the holder's connection is gone.
// A connection admitted for an id is not always its holder (it may have been refused by a later rule,
// or lost the agent to another socket): a revocation closes every connection admitted for the id,
// not only the holder (issue 29). A certificate issued for an id on a connection is part of what the
// connection was admitted for: it goes when the admission goes (revocation, the id moving to another
// credential, close), and stays while the admission stays (an agent released by the liveness sweep
// that comes back through the same gateway is still admitted, and its certificate still issued).
// Contract: claim, then bind only after the message was accepted (the claim mutates nothing, so a
// message refused or failing in between leaves the record as it was). Called on every message:
// claiming an agent its connection already holds reads the mark left on the connection (OwnerMarks).

import type { InstanceUid } from '../../events/ids.ts';
import type { OpampConnection, OwnerMarks } from './connection.ts';

/** A claim that may go ahead: already held by this connection, newly held, or taken from another. */
export type Claim = 'held' | 'new' | 'moved';
/** Why a claim is refused (the reasons of svc_opamp_refused_total). */
export type ClaimRefusal = 'uid_bound_elsewhere' | 'one_agent_per_connection' | 'max_per_gateway';

export const isRefusal = (claim: Claim | ClaimRefusal): claim is ClaimRefusal =>
  claim !== 'held' && claim !== 'new' && claim !== 'moved';

export interface OwnershipPolicy {
  /**
   * A live connection's agent may be taken over by a message on another connection without a
   * credential. A connection with one always may (its binding to the id is checked apart).
   */
  readonly takeover: boolean;
  /** A connection that is not an accepted gateway holds at most one agent. */
  readonly oneAgentUnlessGateway: boolean;
  /** Agents one gateway connection may hold. */
  readonly maxPerGateway: number;
}

export const openPolicy: OwnershipPolicy = Object.freeze({
  takeover: true,
  oneAgentUnlessGateway: false,
  maxPerGateway: Number.POSITIVE_INFINITY,
});

/** The service's rule (docs/security.md): no takeover in open mode, one agent unless a gateway. */
export const strictPolicy = (maxPerGateway: number): OwnershipPolicy =>
  Object.freeze({ takeover: false, oneAgentUnlessGateway: true, maxPerGateway });

export interface ConnectionOwners {
  /** Whether `connection` may hold `uid` now, and how; changes nothing. */
  claim(uid: InstanceUid, connection: OpampConnection): Claim | ClaimRefusal;
  /** Records the claim (after the message was accepted): `uid` leaves its holder, a WebSocket keeps it. */
  bind(uid: InstanceUid, connection: OpampConnection): void;
  /** `uid` leaves `connection` (its agent said goodbye); false when that connection did not hold it. */
  release(uid: InstanceUid, connection: OpampConnection): boolean;
  /** `uid` leaves whichever connection holds it (the liveness sweep disconnected or evicted it). */
  releaseAgent(uid: InstanceUid): void;
  /** Every agent `connection` holds released, every id it was admitted for and issued for dropped (it closed). */
  releaseAll(connection: OpampConnection): readonly InstanceUid[];
  holderOf(uid: InstanceUid): OpampConnection | undefined;
  /** The agents `connection` holds, in the order they were bound (a copy). */
  agentsOf(connection: OpampConnection): readonly InstanceUid[];
  countOf(connection: OpampConnection): number;
  /** Records that `connection`'s credential may speak for `uid` (WebSockets only: a plain-HTTP request ends with its reply). */
  admit(uid: InstanceUid, connection: OpampConnection): void;
  isAdmitted(uid: InstanceUid, connection: OpampConnection): boolean;
  /**
   * Every connection admitted for `uid` that `keep` does not keep, which no longer is, nor issued a
   * certificate for it (the id was revoked: keep none; it moved to another credential: keep that
   * credential's).
   */
  revokeAdmissions(
    uid: InstanceUid,
    keep?: (connection: OpampConnection) => boolean,
  ): readonly OpampConnection[];
  /**
   * Records that a certificate for `uid` is being issued on `connection` (WebSockets only, like
   * admit): its further CSRs for `uid` are answered with nothing new (decideCertificate).
   */
  markIssued(uid: InstanceUid, connection: OpampConnection): void;
  /** The certificate was not issued after all: the connection may ask again. */
  unmarkIssued(uid: InstanceUid, connection: OpampConnection): void;
  wasIssued(uid: InstanceUid, connection: OpampConnection): boolean;
  /** Every agent held, by any connection (the ones a push can reach). */
  held(): IterableIterator<InstanceUid>;
  readonly size: number;
}

const none: readonly InstanceUid[] = Object.freeze([]);

/**
 * A connection's agents: nearly always one, held as itself (no Set per connection: a fleet of 100k
 * single-agent sockets would pay for 100k of them); a Set from the second one on (a gateway's).
 */
type Held = InstanceUid | Set<InstanceUid>;

/** One or more of a kind, kept as itself while it is one (see Held). */
type Some<T> = T | Set<T>;

function addTo<K, V>(map: Map<K, Some<V>>, key: K, value: V): void {
  const some = map.get(key);
  if (some === undefined) map.set(key, value);
  else if (some instanceof Set) some.add(value);
  else if (some !== value) map.set(key, new Set([some, value]));
}

function removeFrom<K, V>(map: Map<K, Some<V>>, key: K, value: V): void {
  const some = map.get(key);
  if (some === value) map.delete(key);
  else if (some instanceof Set) {
    some.delete(value);
    if (some.size === 0) map.delete(key);
  }
}

const listOf = <V>(some: Some<V> | undefined): readonly V[] =>
  some === undefined ? [] : some instanceof Set ? [...some] : [some];

export function createConnectionOwners(policy: OwnershipPolicy = openPolicy): ConnectionOwners {
  const holders = new Map<InstanceUid, OpampConnection>();
  const agents = new Map<OpampConnection, Held>();
  const admittedOn = new Map<OpampConnection, Some<InstanceUid>>();
  const admittedFor = new Map<InstanceUid, Some<OpampConnection>>();
  const issuedOn = new Map<OpampConnection, Some<InstanceUid>>();

  const has = (some: Some<InstanceUid> | undefined, uid: InstanceUid): boolean =>
    some === uid || (some instanceof Set && some.has(uid));
  /** This record's identity in the marks it leaves on connections (OwnerMarks). */
  const self = {};
  /** The marks this record left on `connection`, if any (they only ever say yes: the Maps decide). */
  function marksOf(connection: OpampConnection): OwnerMarks | undefined {
    const marks = connection.ownerMarks;
    return marks !== undefined && marks.by === self ? marks : undefined;
  }
  function marking(connection: OpampConnection): OwnerMarks {
    const marks = marksOf(connection);
    if (marks !== undefined) return marks;
    const fresh: OwnerMarks = { by: self, held: undefined, admitted: undefined };
    connection.ownerMarks = fresh;
    return fresh;
  }
  /** The mark says yes without a lookup (every message after the first); the Map decides otherwise. */
  const isAdmitted = (uid: InstanceUid, connection: OpampConnection): boolean =>
    marksOf(connection)?.admitted === uid || has(admittedOn.get(connection), uid);
  /** The admission of `uid` (every admission: undefined) on `connection` is gone: so is its mark. */
  function unmark(connection: OpampConnection, uid?: InstanceUid): void {
    const marks = marksOf(connection);
    if (marks !== undefined && (uid === undefined || marks.admitted === uid)) marks.admitted = undefined;
  }
  /** Only a WebSocket's record outlives its message, and only until it closes. */
  const keeps = (connection: OpampConnection): boolean => connection.transport === 'ws' && !connection.closed;

  function countOf(connection: OpampConnection): number {
    const held = agents.get(connection);
    return held === undefined ? 0 : typeof held === 'string' ? 1 : held.size;
  }

  function claim(uid: InstanceUid, connection: OpampConnection): Claim | ClaimRefusal {
    if (marksOf(connection)?.held === uid) return 'held';
    const holder = holders.get(uid);
    if (holder === connection) return 'held';
    if (holder !== undefined && !policy.takeover && connection.admission?.credential === undefined)
      return 'uid_bound_elsewhere';
    if (connection.transport === 'ws') {
      const count = countOf(connection);
      if (connection.isGateway) {
        if (count >= policy.maxPerGateway) return 'max_per_gateway';
      } else if (policy.oneAgentUnlessGateway && count >= 1) return 'one_agent_per_connection';
    }
    return holder === undefined ? 'new' : 'moved';
  }

  function forget(uid: InstanceUid, holder: OpampConnection): void {
    holders.delete(uid);
    const marks = marksOf(holder);
    if (marks !== undefined && marks.held === uid) marks.held = undefined;
    const held = agents.get(holder);
    if (held === uid) agents.delete(holder);
    else if (typeof held === 'object') {
      held.delete(uid);
      if (held.size === 0) agents.delete(holder);
    }
  }

  function bind(uid: InstanceUid, connection: OpampConnection): void {
    const holder = holders.get(uid);
    if (holder === connection) return;
    if (holder !== undefined) forget(uid, holder);
    if (connection.transport !== 'ws') return;
    holders.set(uid, connection);
    marking(connection).held = uid;
    const held = agents.get(connection);
    if (held === undefined) agents.set(connection, uid);
    else if (typeof held === 'string') agents.set(connection, new Set([held, uid]));
    else held.add(uid);
  }

  function release(uid: InstanceUid, connection: OpampConnection): boolean {
    if (holders.get(uid) !== connection) return false;
    forget(uid, connection);
    return true;
  }

  function agentsOf(connection: OpampConnection): readonly InstanceUid[] {
    const held = agents.get(connection);
    return held === undefined ? none : typeof held === 'string' ? [held] : [...held];
  }

  function releaseAll(connection: OpampConnection): readonly InstanceUid[] {
    const released = agentsOf(connection);
    agents.delete(connection);
    for (const uid of released) holders.delete(uid);
    const marks = marksOf(connection);
    if (marks !== undefined) marks.held = undefined;
    for (const uid of listOf(admittedOn.get(connection))) removeFrom(admittedFor, uid, connection);
    admittedOn.delete(connection);
    unmark(connection);
    issuedOn.delete(connection);
    return released;
  }

  function revokeAdmissions(
    uid: InstanceUid,
    keep: (connection: OpampConnection) => boolean = () => false,
  ): readonly OpampConnection[] {
    const revoked = listOf(admittedFor.get(uid)).filter((connection) => !keep(connection));
    for (const connection of revoked) {
      removeFrom(admittedOn, connection, uid);
      unmark(connection, uid);
      removeFrom(admittedFor, uid, connection);
      removeFrom(issuedOn, connection, uid);
    }
    return revoked;
  }

  return {
    claim,
    bind,
    release,
    releaseAgent(uid) {
      const holder = holders.get(uid);
      if (holder !== undefined) forget(uid, holder);
    },
    releaseAll,
    admit(uid, connection) {
      if (!keeps(connection)) return;
      addTo(admittedOn, connection, uid);
      addTo(admittedFor, uid, connection);
      marking(connection).admitted = uid;
    },
    isAdmitted,
    markIssued(uid, connection) {
      if (keeps(connection)) addTo(issuedOn, connection, uid);
    },
    unmarkIssued: (uid, connection) => removeFrom(issuedOn, connection, uid),
    wasIssued: (uid, connection) => has(issuedOn.get(connection), uid),
    revokeAdmissions,
    holderOf: (uid) => holders.get(uid),
    agentsOf,
    countOf,
    held: () => holders.keys(),
    get size() {
      return holders.size;
    },
  };
}
