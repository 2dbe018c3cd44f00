// A revoked agent loses its live connection (issue 22; docs/security.md "Revocation"). On
// AgentCredentialRevoked (published by this replica's revoke route, or by the revocation listener for
// a sibling's), the id is forgotten by the admission, so its next message asks the credential store
// and is refused; the WebSocket holding it is closed with 1008 (policy violation), which disconnects
// its agent. A gateway's connection is not closed for one of its agents: that agent alone is released
// and disconnected, and its next message through the gateway is refused.

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
    const holder = deps.owners.holderOf(uid);
    if (holder === undefined) return;
    holder.admittedMore?.delete(uid);
    if (holder.admitted === uid) holder.admitted = undefined;
    if (!holder.isGateway) return holder.close?.(revokedCloseCode, 'agent credential revoked');
    deps.owners.release(uid, holder);
    deps.publish({ type: 'AgentDisconnected', at: deps.now(), data: { uid, reason: 'connection_closed' } });
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
