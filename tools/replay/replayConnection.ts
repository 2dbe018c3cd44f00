// Connections as the recording saw them: the same OpampConnection shape the transports build, but
// with the recorded connection id, so replayed sessions carry the ids the live registry had.

import type { Session, Transport } from '../../src/events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';
import type { OpampConnection } from '../../src/io/opamp/connection.ts';

export function replayConnection(
  id: number,
  transport: Transport,
  remoteAddr: string,
  tlsSubject: string | null,
): OpampConnection {
  let cached: Session | undefined;
  const connection: OpampConnection = {
    id: id as ConnectionId,
    transport,
    remoteAddr,
    tlsSubject,
    isGateway: false,
    replied: false,
    agents: new Set<InstanceUid>(),
    session() {
      if (cached === undefined || cached.viaGateway !== connection.isGateway) {
        cached = {
          connectionId: connection.id,
          transport,
          viaGateway: connection.isGateway,
          remoteAddr,
          tlsSubject,
        };
      }
      return cached;
    },
  };
  return connection;
}
