// When to send an agent its desired remote config (OPAMP.md 3.2: "avoid loops"; docs/remote-config.md
// "On the wire"). Pure. The service sends only to agents that declare AcceptsRemoteConfig, only when
// the agent's reported hash differs from the desired one, and never the same hash twice in a row on
// one connection: while the agent reports APPLYING or FAILED for the desired hash (its reported hash
// then equals it) or has not answered yet (the hash is in flight), nothing is resent. It resends when
// the desired hash changes, on a new connection, or when the agent reports a hash that is neither the
// desired one nor the one in flight (it lost what was sent), unless it rolled back from the desired
// one (rollback.ts): that is not offered again until the desired hash changes. A config that names a
// component type the agent reported it lacks (componentTypes.ts) is not sent at all: the agent could
// only refuse it. It is offered once the agent reports what it needs, or the desired config changes.

import type { RemoteConfigStatus } from '../../events/agentData.ts';
import type { AgentState } from '../agent/agentState.ts';
import { incompatibility } from './componentTypes.ts';
import { acceptsRemoteConfig } from './configState.ts';
import type { DesiredConfig } from './desiredConfig.ts';

export interface OfferContext {
  /** The message opened a new connection for the agent: nothing sent before is known to have arrived. */
  readonly newConnection: boolean;
  /** remote_config_status carried by the message being answered, if any (a fresh report). */
  readonly report: RemoteConfigStatus | undefined;
}

export function shouldOffer(
  agent: AgentState,
  desired: DesiredConfig | undefined,
  ctx: OfferContext,
): desired is DesiredConfig {
  if (desired === undefined || !acceptsRemoteConfig(agent)) return false;
  const reported = agent.remoteConfigStatus?.hash ?? '';
  if (reported === desired.hash) return false;
  // It went back from this very config (rollback.ts): offering it again would loop.
  if (agent.rolledBackFrom === desired.hash) return false;
  if (incompatibility(agent.availableComponents, desired) !== undefined) return false;
  const inFlight = ctx.newConnection ? null : agent.offeredConfigHash;
  if (inFlight !== desired.hash) return true;
  return ctx.report !== undefined && ctx.report.hash !== inFlight;
}
