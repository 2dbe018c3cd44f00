// Revoking an agent (POST /api/agents/{id}/revoke, here or on a sibling replica) ends its live
// connection here: on AgentCredentialRevoked the WebSocket holding the id is closed with 1008
// (policy violation), and the agent's next connection with its certificate meets the 401 of
// admission.ts. A gateway's connection carries other agents and is not closed for one of them.

import type { Observable, Subscription } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../logger.ts';
import type { ConnectionOwners } from './connectionOwners.ts';

export function closeRevokedConnections(deps: {
  readonly events$: Observable<FleetEvent>;
  readonly owners: Pick<ConnectionOwners, 'holderOf'>;
  readonly logger: Logger;
}): Subscription {
  return deps.events$.subscribe((event) => {
    if (event.type !== 'AgentCredentialRevoked') return;
    try {
      const holder = deps.owners.holderOf(event.data.uid);
      if (holder?.close === undefined || holder.isGateway) return;
      holder.close(1008, 'agent credential revoked');
      deps.logger.info({ uid: event.data.uid, remoteAddr: holder.remoteAddr }, 'revoked agent disconnected');
    } catch (error) {
      deps.logger.error({ err: error }, 'closing a revoked agent connection failed');
    }
  });
}
