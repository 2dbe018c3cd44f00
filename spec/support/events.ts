// Event builders for projection specs (given/when/then).

import type { Session } from '../../src/events/agentData.ts';
import type { AgentEvent } from '../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';
import { testSession, uidOf } from './agentFixture.ts';

export const uid = uidOf;

export const session = (connectionId = 1, over: Partial<Session> = {}): Session => ({
  ...testSession,
  connectionId: connectionId as ConnectionId,
  ...over,
});

export const connected = (id: InstanceUid, at: number, s: Session = session()): AgentEvent => ({
  type: 'AgentConnected',
  at,
  data: { uid: id, session: s },
});

export const checkedIn = (
  id: InstanceUid,
  at: number,
  sequenceNum = 0n,
  s: Session = session(),
): AgentEvent => ({
  type: 'AgentCheckedIn',
  at,
  data: { uid: id, session: s, sequenceNum, capabilities: 1n },
});

export const described = (id: InstanceUid, at: number, identifying: Record<string, string>): AgentEvent => ({
  type: 'AgentStatusReported',
  at,
  data: { uid: id, description: { identifying, nonIdentifying: {} } },
});

export const disconnected = (id: InstanceUid, at: number): AgentEvent => ({
  type: 'AgentDisconnected',
  at,
  data: { uid: id, reason: 'connection_closed' },
});

export const evicted = (id: InstanceUid, at: number, lastSeen: number): AgentEvent => ({
  type: 'AgentEvicted',
  at,
  data: { uid: id, lastSeen },
});
