// What the handler knows about one connection: a WebSocket, or a single plain-HTTP request.
// Contract: the handler is never called concurrently for one connection, and calls for one
// connection arrive in the order the messages arrived.

import type { Session, Transport } from '../../events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../events/ids.ts';

export interface OpampConnection {
  readonly id: ConnectionId;
  readonly transport: Transport;
  readonly remoteAddr: string;
  readonly tlsSubject: string | null;
  /** Set by the first gateway connect handshake on this connection. */
  isGateway: boolean;
  /** Whether a reply went out already (server capabilities go on the first reply of a WebSocket). */
  replied: boolean;
  /** Agents whose messages arrived here (disconnected together when a WebSocket closes). */
  readonly agents: Set<InstanceUid>;
  /** The session object shared by every agent on this connection. */
  session(): Session;
  /** Sends a ServerToAgent unasked (a push), `tail` after it; WebSockets only, set by their transport. */
  send?: (message: Uint8Array, tail?: Uint8Array) => void;
}

let nextId = 1;

export function createConnection(
  transport: Transport,
  remoteAddr: string,
  tlsSubject: string | null,
): OpampConnection {
  const id = nextId++ as ConnectionId;
  let cached: Session | undefined;
  const connection: OpampConnection = {
    id,
    transport,
    remoteAddr,
    tlsSubject,
    isGateway: false,
    replied: false,
    agents: new Set(),
    session() {
      if (cached === undefined || cached.viaGateway !== connection.isGateway) {
        cached = { connectionId: id, transport, viaGateway: connection.isGateway, remoteAddr, tlsSubject };
      }
      return cached;
    },
  };
  return connection;
}
