// Revoking an agent (POST /api/agents/{id}/revoke): the store marks its binding and certificates
// revoked, then AgentCredentialRevoked goes out on this replica's bus at once, so the OpAMP listener
// closes the agent's live connection here. Siblings hear of it through the store (PostgreSQL NOTIFY,
// persistence/identity/revocationListener.ts) and publish the same fact on their own buses.

import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { CredentialStore, RevokeOutcome } from './credentialStore.ts';

export interface AgentRevoker {
  /** Whether the store holds a binding (revoked or not) for the id. */
  isBound(uid: InstanceUid): Promise<boolean>;
  /** Rejects when the store cannot record it; nothing is announced then. */
  revoke(uid: InstanceUid, actor: string): Promise<RevokeOutcome>;
}

export function createAgentRevoker(deps: {
  readonly store: Pick<CredentialStore, 'binding' | 'revoke'>;
  readonly publish: (event: FleetEvent) => void;
  readonly now: () => number;
}): AgentRevoker {
  return {
    isBound: async (uid) => (await deps.store.binding(uid)) !== undefined,
    async revoke(uid, actor) {
      const at = deps.now();
      const outcome = await deps.store.revoke(uid, actor, at);
      // Announced even when it was revoked before: a connection that slipped in is closed all the same.
      deps.publish({ type: 'AgentCredentialRevoked', at, data: { uid, revokedBy: outcome.revokedBy } });
      return outcome;
    },
  };
}
