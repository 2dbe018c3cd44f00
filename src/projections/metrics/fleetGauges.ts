// The fleet gauges of /metrics/fleet, computed at scrape time in one pass over the registry (SPEC
// "Metrics", fleet registry). Definitions match fleetCounts.ts (/api/status) so the two never disagree.
// Cost: one pass, a handful of integer increments per agent and no allocation per agent; the
// per-agent visitor runs only when the series are not capped.

import type { Route, Transport } from '../../events/agentData.ts';
import { isSupervisorManaged, type AgentState } from '../agent/agentState.ts';
import { configStates, type ConfigState } from '../remoteConfig/configState.ts';

/** The attribute and value that mark an agent as run by the OpAMP supervisor. */

export type ConnectedKey = `${Transport}_${Route}`;

export interface FleetGauges {
  /** svc_fleet_size: every registered agent, connected or not. */
  readonly size: number;
  /** svc_agent_series_capped: size > per_agent_series_limit. */
  readonly capped: boolean;
  /** svc_agents_connected{transport,via}. */
  readonly connected: Readonly<Record<ConnectedKey, number>>;
  readonly disconnected: number;
  /** Registered without a description (SPEC rule 18). */
  readonly awaitingFullState: number;
  /** Missing at least one required attribute. */
  readonly noncompliant: number;
  readonly supervisorManaged: number;
  /** svc_agents_config_state{state}. */
  readonly configStates: Readonly<Record<ConfigState, number>>;
}

export const connectedKeys: readonly { key: ConnectedKey; transport: Transport; via: Route }[] = [
  { key: 'ws_direct', transport: 'ws', via: 'direct' },
  { key: 'ws_gateway', transport: 'ws', via: 'gateway' },
  { key: 'http_direct', transport: 'http', via: 'direct' },
  { key: 'http_gateway', transport: 'http', via: 'gateway' },
];

/** SPEC: "When svc_fleet_size exceeds metrics.per_agent_series_limit, all per-agent series are omitted". */
export const isCapped = (size: number, limit: number): boolean => size > limit;

/**
 * One pass over `agents` (of which there are `size`). `perAgent` sees every agent when the series are
 * not capped and none when they are.
 */
export function measureFleet(
  agents: Iterable<AgentState>,
  size: number,
  limit: number,
  perAgent: (agent: AgentState) => void,
  configStateOf: (agent: AgentState) => ConfigState = () => 'unmanaged',
): FleetGauges {
  const capped = isCapped(size, limit);
  const states = Object.fromEntries(configStates.map((s) => [s, 0])) as Record<ConfigState, number>;
  let wsDirect = 0;
  let wsGateway = 0;
  let httpDirect = 0;
  let httpGateway = 0;
  let disconnected = 0;
  let awaitingFullState = 0;
  let noncompliant = 0;
  let supervisorManaged = 0;
  let counted = 0;
  for (const agent of agents) {
    counted++;
    if (agent.connected) {
      const { transport, viaGateway } = agent.session;
      if (transport === 'ws') {
        if (viaGateway) wsGateway++;
        else wsDirect++;
      } else if (viaGateway) httpGateway++;
      else httpDirect++;
    } else {
      disconnected++;
    }
    if (agent.description === null) awaitingFullState++;
    else if (isSupervisorManaged(agent)) supervisorManaged++;
    if (agent.missingAttributes.length > 0) noncompliant++;
    states[configStateOf(agent)]++;
    if (!capped) perAgent(agent);
  }
  return {
    size: counted,
    capped,
    connected: {
      ws_direct: wsDirect,
      ws_gateway: wsGateway,
      http_direct: httpDirect,
      http_gateway: httpGateway,
    },
    disconnected,
    awaitingFullState,
    noncompliant,
    supervisorManaged,
    configStates: states,
  };
}
