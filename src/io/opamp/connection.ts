// What the handler knows about one connection: a WebSocket, or a single plain-HTTP request.
// Contract: the handler is never called concurrently for one connection, and calls for one
// connection arrive in the order the messages arrived.
// One of these lives as long as each WebSocket, so it is a class (its methods shared, not one closure
// per connection). Which agents it holds and which ids it was admitted for are not its business:
// connectionOwners.ts keeps them, and leaves here only marks of the last ones (ownerMarks).

import type { Session, Transport } from '../../events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../events/ids.ts';
import type { AgentCredential } from '../../projections/identity/agentCredential.ts';
import type { CertificateBounds } from '../../projections/identity/credentialStore.ts';
import type { Selector } from '../../projections/filter/selector.ts';
import type { IssuedAgent } from '../tls/agentCa.ts';
import { toInstanceUid } from './instanceUid.ts';

/**
 * How a connection got in (admission.ts), given to it by its transport before any message is
 * handled: the one record the id binding (agentAdmission.ts), the token's selector (messageRules.ts)
 * and the CSR flow (certificateOffer.ts) read.
 */
export interface Admission {
  /** What it authenticated with; undefined in open mode (no token configured, no client certificate). */
  readonly credential: AgentCredential | undefined;
  /** The certificate of the agent CA it presented (then also `credential`), if any. */
  readonly presented?: IssuedAgent | undefined;
  /** The OpAMP URL the agent reached: scheme, its Host header, path (an offer's destination_endpoint). */
  readonly url: string;
  /**
   * The selector every description must match (tokenScope.ts): a token's (enrollment.ts), or the one
   * an agent certificate carries from the token it was issued to (admission.ts).
   */
  readonly selector?: Selector | undefined;
  /**
   * Whether the credential may declare a gateway: a token with `gateway: true`, a certificate issued
   * to one, an OpAMP client certificate named in agents.gateway_certificates. Open mode: any may.
   */
  readonly gateway?: boolean | undefined;
}

/** What a certificate issued on a connection carries of its credential's bounds (CertificateBounds). */
export const boundsOf = (admission: Admission | undefined): CertificateBounds => ({
  selector: admission?.selector?.text ?? null,
  gateway: admission?.gateway === true,
});

export interface OpampConnection {
  readonly id: ConnectionId;
  readonly transport: Transport;
  readonly remoteAddr: string;
  readonly tlsSubject: string | null;
  /** How it got in; undefined for connections of a recording or a spec that made none. */
  readonly admission: Admission | undefined;
  /** Set when the handler was told the connection closed: a message decided later folds nothing. */
  closed: boolean;
  /** Set by the first gateway connect handshake on this connection. */
  isGateway: boolean;
  /** Whether a reply went out already (server capabilities go on the first reply of a WebSocket). */
  replied: boolean;
  /** The session object shared by every agent on this connection. */
  session(): Session;
  /** Sends a ServerToAgent unasked (a push), `tail` after it; WebSockets only, set by their transport. */
  send?: (message: Uint8Array, tail?: Uint8Array) => void;
  /** Closes a WebSocket (its agents' credential was revoked); set by its transport. */
  close?: (code: number, reason: string) => void;
  /**
   * Bytes the transport writes in front of every reply on this connection (a WebSocket's framing
   * header): the handler encodes replies after that many zero bytes (HandleResult, push).
   */
  readonly replyHeadroom: number;
  /** toInstanceUid of a message's instance_uid, remembering the last one (the next message's, nearly always). */
  instanceUid(bytes: Uint8Array): InstanceUid | undefined;
  /**
   * The id this WebSocket last came to hold and the one it was last admitted for, written and
   * cleared only by the connection owners that recorded them (connectionOwners.ts keeps the full
   * record): every later message of that id is found held and admitted by reading this, instead of
   * a lookup in a Map of every agent per message.
   */
  ownerMarks?: OwnerMarks | undefined;
}

/** See OpampConnection.ownerMarks; `by` is the owners record that keeps them (it trusts no other's). */
export interface OwnerMarks {
  readonly by: object;
  held: InstanceUid | undefined;
  admitted: InstanceUid | undefined;
}

/** Four bytes as one int32 (a small integer, kept in the object itself). */
const word = (b: Uint8Array, at: number): number =>
  b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24);

/** Hands out connection ids; one per listener (the composition creates it), never a module counter. */
export type ConnectionIds = () => ConnectionId;

/** Ids 1, 2, 3, … */
export function createConnectionIds(): ConnectionIds {
  let next = 1;
  return () => next++ as ConnectionId;
}

/** A connection; the WebSocket transport extends it with its socket (wsTransport.ts). */
export class Connection implements OpampConnection {
  readonly id: ConnectionId;
  readonly transport: Transport;
  readonly remoteAddr: string;
  readonly tlsSubject: string | null;
  readonly admission: Admission | undefined;
  closed = false;
  isGateway = false;
  replied = false;
  ownerMarks: OwnerMarks | undefined = undefined;
  get replyHeadroom(): number {
    return 0;
  }
  #session: Session | undefined = undefined;
  /** The last 16-byte instance_uid as four words, and its text. */
  #uid: InstanceUid | undefined = undefined;
  #uid0 = 0;
  #uid1 = 0;
  #uid2 = 0;
  #uid3 = 0;

  constructor(
    transport: Transport,
    remoteAddr: string,
    tlsSubject: string | null,
    id: ConnectionId,
    admission?: Admission,
  ) {
    this.id = id;
    this.transport = transport;
    this.remoteAddr = remoteAddr;
    this.tlsSubject = tlsSubject;
    this.admission = admission;
  }

  instanceUid(bytes: Uint8Array): InstanceUid | undefined {
    if (bytes.length !== 16) return toInstanceUid(bytes);
    const w0 = word(bytes, 0);
    const w1 = word(bytes, 4);
    const w2 = word(bytes, 8);
    const w3 = word(bytes, 12);
    if (
      this.#uid !== undefined &&
      w0 === this.#uid0 &&
      w1 === this.#uid1 &&
      w2 === this.#uid2 &&
      w3 === this.#uid3
    )
      return this.#uid;
    this.#uid = toInstanceUid(bytes);
    this.#uid0 = w0;
    this.#uid1 = w1;
    this.#uid2 = w2;
    this.#uid3 = w3;
    return this.#uid;
  }

  session(): Session {
    const cached = this.#session;
    if (cached !== undefined && cached.viaGateway === this.isGateway) return cached;
    const { id: connectionId, transport, isGateway: viaGateway, remoteAddr, tlsSubject } = this;
    this.#session = { connectionId, transport, viaGateway, remoteAddr, tlsSubject };
    return this.#session;
  }
}

/** A connection with `id` (from the listener's ConnectionIds, or the id a recording carries). */
export function createConnection(
  transport: Transport,
  remoteAddr: string,
  tlsSubject: string | null,
  id: ConnectionId,
  admission?: Admission,
): OpampConnection {
  return new Connection(transport, remoteAddr, tlsSubject, id, admission);
}
