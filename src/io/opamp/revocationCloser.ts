// A revoked agent loses its live connection (issue 22; docs/security.md "Revocation"). On
// AgentCredentialRevoked (published by this replica's revoke route, or by the revocation listener for
// a sibling's), the id is forgotten by the admission, so its next message asks the credential store
// and is refused; every WebSocket admitted for the id (connectionOwners.ts; not only the one holding
// it: issue 29) and the one holding it are closed with 1008 (policy violation), which disconnects
// its agent. A gateway's connection is not closed for one of its agents: that agent alone is released
// and disconnected, and its next message through the gateway is asked again and refused.

import type { Observable } from 'rxjs';
import type { AgentEvent, FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentAdmission } from './agentAdmission.ts';
import type { ConnectionOwners } from './connectionOwners.ts';

export const revokedCloseCode = 1008;

export interface RevocationCloserDeps {
  readonly events$: Observable<FleetEvent>;
  readonly owners: ConnectionOwners;
  readonly admission: Pick<AgentAdmission, 'forget'>;
  /** Publishes the disconnect of an agent released from a gateway. */
  readonly publish: (event: AgentEvent) => void;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}

export function createRevocationCloser(deps: RevocationCloserDeps): { stop(): void } {
  function revoked(uid: InstanceUid): void {
    deps.admission.forget(uid);
    const connections = new Set(deps.owners.revokeAdmissions(uid));
    const holder = deps.owners.holderOf(uid);
    if (holder !== undefined) connections.add(holder);
    for (const connection of connections) {
      if (!connection.isGateway) {
        connection.close?.(revokedCloseCode, 'agent credential revoked');
        continue;
      }
      if (!deps.owners.release(uid, connection)) continue;
      deps.publish({ type: 'AgentDisconnected', at: deps.now(), data: { uid, reason: 'connection_closed' } });
    }
  }

  const subscription = deps.events$.subscribe((event) => {
    if (event.type !== 'AgentCredentialRevoked') return;
    try {
      revoked(event.data.uid);
    } catch (error) {
      deps.onError(error);
    }
  });
  return { stop: () => subscription.unsubscribe() };
}
