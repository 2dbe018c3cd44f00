// AgentState records for unit specs of the page helpers (plain data, as the registry holds them).

import type { ComponentHealth } from '../../../src/events/agentData.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { agent, health as baseHealth, testSession, uidOf } from '../../support/agentFixture.ts';

export { uidOf };

/** Health with the status texts the Collector reports. */
export const health = (healthy: boolean, over: Partial<ComponentHealth> = {}): ComponentHealth =>
  baseHealth(healthy, { status: healthy ? 'StatusOK' : 'StatusRecoverableError', ...over });

export interface AgentSpec {
  readonly n: number;
  readonly name?: string;
  readonly version?: string;
  readonly connected?: boolean;
  readonly health?: ComponentHealth | null;
  readonly viaGateway?: boolean;
  readonly transport?: 'ws' | 'http';
  readonly lastSeen?: number;
  readonly identifying?: Record<string, string>;
  readonly nonIdentifying?: Record<string, string>;
}

export function agentState(spec: AgentSpec): AgentState {
  const identifying: Record<string, string> = { ...spec.identifying };
  if (spec.name !== undefined) identifying['service.name'] = spec.name;
  if (spec.version !== undefined) identifying['service.version'] = spec.version;
  return agent({
    n: spec.n,
    identifying,
    nonIdentifying: spec.nonIdentifying ?? {},
    over: {
      firstSeen: 1_000,
      lastSeen: spec.lastSeen ?? 2_000,
      health: spec.health ?? null,
      connected: spec.connected ?? true,
      session: { ...testSession, transport: spec.transport ?? 'ws', viaGateway: spec.viaGateway ?? false },
      connectionChangedAt: 1_000,
    },
  });
}
