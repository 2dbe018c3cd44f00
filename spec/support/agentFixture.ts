// Builds AgentState records for specs of pure code (filters, views, read path, sweep, store).

import type { ComponentHealth, Session } from '../../src/events/agentData.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';
import type { AgentMessage } from '../../src/projections/agent/agentMessage.ts';
import type { AgentState } from '../../src/projections/agent/agentState.ts';

export const uidOf = (n: number): InstanceUid =>
  `00000000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;

/** An AgentMessage of `uid` that leaves every sub-message out ("unchanged"), with `over` on top. */
export const messageOf = (uid: InstanceUid, over: Partial<AgentMessage> = {}): AgentMessage => ({
  uid,
  sequenceNum: 0n,
  capabilities: 1n,
  description: undefined,
  health: undefined,
  effectiveConfig: undefined,
  packageStatuses: undefined,
  availableComponents: undefined,
  remoteConfigStatus: undefined,
  connectionSettingsStatus: undefined,
  disconnect: false,
  ...over,
});

export const testSession: Session = {
  connectionId: 1 as ConnectionId,
  transport: 'ws',
  viaGateway: false,
  remoteAddr: '127.0.0.1:5000',
  tlsSubject: null,
};

export const health = (healthy: boolean, over: Partial<ComponentHealth> = {}): ComponentHealth => ({
  healthy,
  startTimeNanos: 0n,
  lastError: '',
  status: '',
  statusTimeNanos: 0n,
  components: {},
  ...over,
});

export interface AgentSpec {
  readonly n?: number;
  readonly uid?: InstanceUid;
  readonly identifying?: Record<string, string>;
  readonly nonIdentifying?: Record<string, string>;
  /** No description at all (awaiting full state). */
  readonly undescribed?: boolean;
  readonly over?: Partial<AgentState>;
}

export function agent(spec: AgentSpec = {}): AgentState {
  const uid = spec.uid ?? uidOf(spec.n ?? 1);
  return {
    uid,
    firstSeen: Date.UTC(2026, 0, 1),
    lastSeen: Date.UTC(2026, 0, 1, 0, 5),
    sequenceNum: 0n,
    capabilities: 1n,
    description: spec.undescribed
      ? null
      : { identifying: spec.identifying ?? {}, nonIdentifying: spec.nonIdentifying ?? {} },
    health: null,
    effectiveConfig: null,
    packages: null,
    missingAttributes: [],
    reservedAttributeConflicts: [],
    complianceUpdatedAt: null,
    remoteConfigStatus: null,
    offeredConfigHash: null,
    rolledBackFrom: null,
    connectionSettingsStatus: null,
    offeredSettingsHash: null,
    failedSettingsHash: null,
    availableComponents: null,
    connected: true,
    session: testSession,
    connectionChangedAt: Date.UTC(2026, 0, 1),
    ...spec.over,
  };
}
