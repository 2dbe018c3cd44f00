// AgentState records for unit specs of the page helpers (plain data, as the registry holds them).

import type { ComponentHealth } from '../../../src/events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import type { AgentState } from '../../../src/projections/registry/agentState.ts';

export const uidOf = (n: number): InstanceUid => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;

export const health = (healthy: boolean, over: Partial<ComponentHealth> = {}): ComponentHealth => ({
  healthy,
  startTimeNanos: 0n,
  lastError: '',
  status: healthy ? 'StatusOK' : 'StatusRecoverableError',
  statusTimeNanos: 0n,
  components: {},
  ...over,
});

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
  return {
    uid: uidOf(spec.n),
    firstSeen: 1_000,
    lastSeen: spec.lastSeen ?? 2_000,
    sequenceNum: 0n,
    capabilities: 1n,
    description: { identifying, nonIdentifying: spec.nonIdentifying ?? {} },
    health: spec.health === undefined ? null : spec.health,
    effectiveConfig: null,
    packages: null,
    missingAttributes: [],
    reservedAttributeConflicts: [],
    complianceUpdatedAt: null,
    connected: spec.connected ?? true,
    session: {
      connectionId: 1 as ConnectionId,
      transport: spec.transport ?? 'ws',
      viaGateway: spec.viaGateway ?? false,
      remoteAddr: '127.0.0.1:5000',
      tlsSubject: null,
    },
    connectionChangedAt: 1_000,
  };
}
