// Announces to the admission a message that waits behind another on its socket (wsTransport.ts): a
// gateway relays the first reports of many new agents back to back, and each waits for its id's
// binding. Asking the store for each id as its message arrives, rather than when its turn comes,
// lets the store answer them together (one statement for many ids on PostgreSQL), while the
// messages are still handled one after another, in order, exactly as before. Only what the handler
// would ask the store for is announced: a message of an id its connection was not admitted for yet,
// that breaks no rule now (a message refused by a rule binds nothing, as when it is handled).

import type { AgentAdmission } from './agentAdmission.ts';
import type { OpampConnection } from './connection.ts';
import type { ConnectionOwners } from './connectionOwners.ts';
import type { Decoder } from './decoder.ts';
import { isGatewayConnect } from './gateway.ts';
import { brokenRule, type MessageRules } from './messageRules.ts';
import { toAgentMessage } from './toAgentMessage.ts';
import type { RegistryProjection } from '../../projections/registry/registryProjection.ts';

const RequestInstanceUid = 0x1n;

export interface AdmitAheadDeps extends MessageRules {
  readonly admission?: AgentAdmission | undefined;
  readonly decoder: Decoder;
  readonly owners: Pick<ConnectionOwners, 'claim' | 'isAdmitted'>;
  readonly registry: Pick<RegistryProjection, 'get' | 'size'>;
  readonly now: () => number;
}

export function admitAhead(deps: AdmitAheadDeps, connection: OpampConnection, payload: Uint8Array): void {
  const admission = deps.admission;
  if (admission === undefined || connection.admission?.credential === undefined) return;
  try {
    const msg = deps.decoder.decode(payload);
    if (isGatewayConnect(msg) || (msg.flags & RequestInstanceUid) !== 0n) return;
    const uid = connection.instanceUid(msg.instanceUid);
    if (uid === undefined || deps.owners.isAdmitted(uid, connection)) return;
    const claim = deps.owners.claim(uid, connection);
    const known = deps.registry.get(uid);
    const message = toAgentMessage(msg, uid);
    if (brokenRule(deps, connection, message, claim, known, deps.registry.size) !== undefined) return;
    admission.ahead(connection, uid, deps.now());
  } catch {
    // Unreadable: its turn answers it (counted there), and nothing is asked for it.
  }
}
