import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { Session } from '../../../src/events/agentData.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../../src/events/ids.ts';
import {
  createFleetCountersProjection,
  evolveFleetCounters,
  initialFleetCounters,
  type FleetCounters,
} from '../../../src/projections/metrics/fleetCounters.ts';

const uid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, '0')}` as InstanceUid;
const conn = (n: number) => n as ConnectionId;
const session: Session = {
  connectionId: conn(1),
  transport: 'ws',
  viaGateway: false,
  remoteAddr: '127.0.0.1:1',
  tlsSubject: null,
};
const at = 1_700_000_000_000;

const ev = {
  connected: (n: number): FleetEvent => ({ type: 'AgentConnected', at, data: { uid: uid(n), session } }),
  checkedIn: (n: number): FleetEvent => ({
    type: 'AgentCheckedIn',
    at,
    data: { uid: uid(n), session, sequenceNum: 0n, capabilities: 1n },
  }),
  disconnected: (n: number): FleetEvent => ({
    type: 'AgentDisconnected',
    at,
    data: { uid: uid(n), reason: 'connection_closed' },
  }),
  evicted: (n: number): FleetEvent => ({ type: 'AgentEvicted', at, data: { uid: uid(n), lastSeen: at } }),
  status: (n: number): FleetEvent => ({
    type: 'AgentStatusReported',
    at,
    data: { uid: uid(n), description: { identifying: {}, nonIdentifying: {} } },
  }),
  health: (n: number): FleetEvent => ({
    type: 'AgentHealthReported',
    at,
    data: {
      uid: uid(n),
      health: {
        healthy: true,
        startTimeNanos: 0n,
        lastError: '',
        status: '',
        statusTimeNanos: 0n,
        components: {},
      },
    },
  }),
  config: (n: number): FleetEvent => ({
    type: 'AgentEffectiveConfigReported',
    at,
    data: { uid: uid(n), config: {} },
  }),
  packages: (n: number): FleetEvent => ({
    type: 'AgentPackageStatusesReported',
    at,
    data: { uid: uid(n), packages: { packages: {}, serverProvidedAllPackagesHash: '', errorMessage: '' } },
  }),
  gateway: (c: number, accepted: boolean, firstOnConnection: boolean): FleetEvent => ({
    type: 'GatewayConnectAnswered',
    at,
    data: { connectionId: conn(c), accepted, firstOnConnection },
  }),
  gatewayClosed: (c: number): FleetEvent => ({
    type: 'GatewayConnectionClosed',
    at,
    data: { connectionId: conn(c) },
  }),
};

const fold = (events: FleetEvent[], state: FleetCounters = initialFleetCounters) =>
  events.reduce((s, e) => evolveFleetCounters(s, e), state);

describe('fleet counters projection', () => {
  it('counts connect, disconnect and eviction transitions', () => {
    const s = fold([ev.connected(1), ev.connected(2), ev.disconnected(1), ev.evicted(1), ev.connected(1)]);
    expect(s).to.include({ connects: 3, disconnects: 1, evicted: 1 });
  });

  it('counts each report by its SPEC type', () => {
    const s = fold([
      ev.status(1),
      ev.health(1),
      ev.health(2),
      ev.config(1),
      ev.packages(1),
      ev.packages(2),
      ev.packages(3),
    ]);
    expect(s.reports).to.deep.equal({ status: 1, health: 2, effective_config: 1, package_statuses: 3 });
  });

  it('returns the same state for events that count nothing', () => {
    const s = fold([ev.connected(1)]);
    expect(evolveFleetCounters(s, ev.checkedIn(1))).to.equal(s);
  });

  it('counts gateway answers by result and open gateway connections', () => {
    const s = fold([
      ev.gateway(1, true, true),
      ev.gateway(1, true, false), // a second downstream agent on the same gateway connection
      ev.gateway(2, false, false),
      ev.gateway(3, true, true),
    ]);
    expect(s.gatewayConnects).to.deep.equal({ accepted: 3, rejected: 1 });
    expect(s.gatewayConnections).to.equal(2);
    expect(fold([ev.gatewayClosed(1)], s).gatewayConnections).to.equal(1);
  });

  it('never reports a negative number of gateway connections', () => {
    expect(fold([ev.gatewayClosed(9)]).gatewayConnections).to.equal(0);
  });

  it('counts evictions at the sweep, or at soft delete when the root says persistence counts them', () => {
    const softDeleted = (n: number): FleetEvent => ({
      type: 'AgentsSoftDeleted',
      at: 9,
      data: { uids: Array.from({ length: n }, (_, i) => uid(i + 1)) },
    });
    const events = [ev.evicted(1), ev.evicted(2), softDeleted(2)];
    expect(fold(events).evicted).to.equal(2);
    const atSoftDelete = events.reduce(
      (s, e) => evolveFleetCounters(s, e, { evictionsCountedAt: 'soft_delete' }),
      initialFleetCounters,
    );
    expect(atSoftDelete.evicted).to.equal(2);
    expect(evolveFleetCounters(atSoftDelete, ev.evicted(3), { evictionsCountedAt: 'soft_delete' })).to.equal(
      atSoftDelete,
    );
  });

  it('folds what the bus publishes until stopped', () => {
    const events$ = new Subject<FleetEvent>();
    const projection = createFleetCountersProjection(events$, () => undefined);
    events$.next(ev.connected(1));
    projection.stop();
    events$.next(ev.connected(2));
    expect(projection.current().connects).to.equal(1);
  });
});
