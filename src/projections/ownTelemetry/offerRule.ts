// When to send an agent its own-telemetry connection settings (docs/own-telemetry.md "Offered once").
// Pure. Like remote config (remoteConfig/offerRule.ts), never in a loop: an offer goes out once per
// change of what the agent is offered, and not again
// - while the agent's connection_settings_status reports that hash (APPLIED, APPLYING or FAILED),
// - after it reported FAILED for that hash (until what it is offered changes),
// - while it is in flight: sent on this connection and not answered, which covers agents that never
//   report a status (the OpAMP supervisor declares no ReportsConnectionSettingsStatus).
// On a new connection it is sent again unless the agent reported that hash: nothing sent on the old
// one is known to have arrived.

import type { AgentState } from '../agent/agentState.ts';
import type { OwnTelemetryOffer } from './ownTelemetry.ts';

export interface SettingsOfferContext {
  /** The message opened a new connection for the agent. */
  readonly newConnection: boolean;
}

export function shouldOfferSettings(
  agent: AgentState,
  offer: OwnTelemetryOffer | undefined,
  ctx: SettingsOfferContext,
): offer is OwnTelemetryOffer {
  if (offer === undefined) return false;
  if (agent.connectionSettingsStatus?.hash === offer.hash) return false;
  if (agent.failedSettingsHash === offer.hash) return false;
  const inFlight = ctx.newConnection ? null : agent.offeredSettingsHash;
  return inFlight !== offer.hash;
}
