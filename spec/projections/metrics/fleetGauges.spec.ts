import { expect } from 'chai';
import type { Session } from '../../../src/events/agentData.ts';
import type { AgentEvent } from '../../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import { measureFleet } from '../../../src/projections/metrics/fleetGauges.ts';
import { supervisorValue } from '../../../src/projections/agent/agentState.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { evolveAgent } from '../../../src/projections/agent/evolveAgent.ts';
import { fleetCounts } from '../../../src/projections/registry/fleetCounts.ts';

const uid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;
const at = 1_700_000_000_000;
const sessionOf = (transport: 'ws' | 'http', viaGateway: boolean): Session => ({
  connectionId: 1 as ConnectionId,
  transport,
  viaGateway,
  remoteAddr: '127.0.0.1:1',
  tlsSubject: null,
});

/** An agent as the registry fold makes it from events. */
function agent(n: number, steps: (id: InstanceUid) => AgentEvent[]): AgentState {
  const state = steps(uid(n)).reduce<AgentState | undefined>((a, e) => evolveAgent(a, e), undefined);
  if (state === undefined) throw new Error('no agent');
  return state;
}
const connect = (id: InstanceUid, s = sessionOf('ws', false)): AgentEvent => ({
  type: 'AgentConnected',
  at,
  data: { uid: id, session: s },
});
const describe_ = (id: InstanceUid, identifying: Record<string, string>): AgentEvent => ({
  type: 'AgentStatusReported',
  at,
  data: { uid: id, description: { identifying, nonIdentifying: {} } },
});
const missing = (id: InstanceUid, keys: string[]): AgentEvent => ({
  type: 'AgentComplianceChanged',
  at,
  data: { uid: id, missing: keys, conflicts: [], newlyMissing: keys, newlyConflicting: [] },
});
const disconnect = (id: InstanceUid): AgentEvent => ({
  type: 'AgentDisconnected',
  at,
  data: { uid: id, reason: 'connection_closed' },
});

const fleet: AgentState[] = [
  agent(1, (id) => [connect(id), describe_(id, { 'opamp.managed_by': supervisorValue })]),
  agent(2, (id) => [
    connect(id, sessionOf('http', false)),
    describe_(id, { 'service.name': 'x' }),
    missing(id, ['env']),
  ]),
  agent(3, (id) => [connect(id, sessionOf('ws', true))]),
  agent(4, (id) => [
    connect(id, sessionOf('http', true)),
    describe_(id, { 'opamp.managed_by': 'someone-else' }),
  ]),
  agent(5, (id) => [connect(id), disconnect(id)]),
];

describe('fleet gauges', () => {
  it('counts connected agents by transport and route, and the rest as disconnected', () => {
    const g = measureFleet(fleet, fleet.length, 10, () => undefined);
    expect(g.connected).to.deep.equal({ ws_direct: 1, ws_gateway: 1, http_direct: 1, http_gateway: 1 });
    expect(g.disconnected).to.equal(1);
    expect(g.size).to.equal(5);
  });

  it('agrees with the fleet counts of /api/status', () => {
    const g = measureFleet(fleet, fleet.length, 10, () => undefined);
    const c = fleetCounts(fleet);
    expect({ size: g.size, disconnected: g.disconnected, awaiting: g.awaitingFullState }).to.deep.equal({
      size: c.total,
      disconnected: c.disconnected,
      awaiting: c.awaiting_full_state,
    });
    expect(Object.values(g.connected).reduce((a, b) => a + b, 0)).to.equal(c.connected);
  });

  it('counts noncompliant, awaiting full state and supervisor-managed agents', () => {
    const g = measureFleet(fleet, fleet.length, 10, () => undefined);
    expect(g.noncompliant).to.equal(1);
    expect(g.awaitingFullState).to.equal(2);
    expect(g.supervisorManaged).to.equal(1);
  });

  it('visits every agent when the fleet size is at the series limit', () => {
    const seen: string[] = [];
    const g = measureFleet(fleet, fleet.length, fleet.length, (a) => seen.push(a.uid));
    expect(g.capped).to.equal(false);
    expect(seen).to.have.members(fleet.map((a) => a.uid));
  });

  it('visits no agent and reports capped when the fleet size is one above the limit', () => {
    const seen: string[] = [];
    const g = measureFleet(fleet, fleet.length, fleet.length - 1, (a) => seen.push(a.uid));
    expect(g.capped).to.equal(true);
    expect(seen).to.deep.equal([]);
    expect(g.size).to.equal(fleet.length);
  });

  it('walks the fleet once whether capped or not', () => {
    let iterations = 0;
    const counting: Iterable<AgentState> = {
      *[Symbol.iterator]() {
        for (const a of fleet) {
          iterations++;
          yield a;
        }
      },
    };
    measureFleet(counting, fleet.length, 0, () => undefined);
    measureFleet(counting, fleet.length, 100, () => undefined);
    expect(iterations).to.equal(2 * fleet.length);
  });
});
