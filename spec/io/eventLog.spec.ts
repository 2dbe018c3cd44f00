import { expect } from 'chai';
import { Writable } from 'node:stream';
import { Subject } from 'rxjs';
import type { Session } from '../../src/events/agentData.ts';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import type { ConnectionId, InstanceUid } from '../../src/events/ids.ts';
import { createEventLog } from '../../src/io/eventLog.ts';
import { createLogger } from '../../src/io/logger.ts';

const uid = '00000000-0000-7000-8000-000000000001' as InstanceUid;
const session: Session = {
  connectionId: 1 as ConnectionId,
  transport: 'ws',
  viaGateway: false,
  remoteAddr: '127.0.0.1:1',
  tlsSubject: null,
};
const at = 1_700_000_000_000;

/** A JSON logger at `level` whose lines the spec reads back. */
function capture(level: 'debug' | 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ level, format: 'json', destination }) };
}

const events: FleetEvent[] = [
  { type: 'AgentConnected', at, data: { uid, session } },
  { type: 'AgentCheckedIn', at, data: { uid, session, sequenceNum: 0n, capabilities: 1n } },
  {
    type: 'AgentStatusReported',
    at,
    data: {
      uid,
      description: { identifying: { 'service.name': 'secret-service', healthy: 'x' }, nonIdentifying: {} },
    },
  },
  {
    type: 'AgentComplianceChanged',
    at,
    data: {
      uid,
      missing: ['deployment.environment'],
      conflicts: ['healthy'],
      newlyMissing: ['deployment.environment'],
      newlyConflicting: ['healthy'],
    },
  },
  { type: 'AgentDisconnected', at, data: { uid, reason: 'heartbeat_missed' } },
  { type: 'AgentEvicted', at, data: { uid, lastSeen: at } },
  {
    type: 'GatewayConnectAnswered',
    at,
    data: { connectionId: 2 as ConnectionId, accepted: false, firstOnConnection: false },
  },
];

describe('event log', () => {
  it('logs connection lifecycle at debug, evictions at info and compliance problems at warn', () => {
    const { lines, logger } = capture('debug');
    const events$ = new Subject<FleetEvent>();
    const log = createEventLog(events$, logger);
    for (const e of events) events$.next(e);
    log.stop();
    const byMsg = Object.fromEntries(lines.map((l) => [l.msg as string, l]));
    expect(byMsg['agent connected']).to.include({ level: 20, uid, transport: 'ws' });
    expect(byMsg['agent disconnected']).to.include({ level: 20, uid, reason: 'heartbeat_missed' });
    expect(byMsg['agent evicted']).to.include({ level: 30, uid });
    expect(byMsg['agent attributes not compliant']).to.deep.include({
      level: 40,
      uid,
      missing: ['deployment.environment'],
      conflicts: ['healthy'],
    });
    expect(byMsg['gateway connect rejected']).to.include({ level: 40 });
  });

  it('keeps connection lifecycle out of the log at info', () => {
    const { lines, logger } = capture('info');
    const events$ = new Subject<FleetEvent>();
    createEventLog(events$, logger);
    for (const e of events) events$.next(e);
    expect(lines.map((l) => l.msg)).to.deep.equal([
      'agent attributes not compliant',
      'agent evicted',
      'gateway connect rejected',
    ]);
  });

  it('never logs attribute values', () => {
    const { lines, logger } = capture('debug');
    const events$ = new Subject<FleetEvent>();
    createEventLog(events$, logger);
    for (const e of events) events$.next(e);
    expect(JSON.stringify(lines)).to.not.include('secret-service');
  });
});
