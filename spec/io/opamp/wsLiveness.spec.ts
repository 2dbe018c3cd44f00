import { expect } from 'chai';
import WebSocket from 'ws';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const interval = 1000;
/** Virtual time moves in steps this long, each followed by a real round trip over the socket. */
const step = 50;

/**
 * A ping of the agent's own and the server's pong: once it is back, the server has read every frame
 * the agent sent before it (the agent's pings are not counted as liveness, so this proves nothing by
 * itself). Resolves early when the socket closes.
 */
function roundTrip(socket: WebSocket): Promise<void> {
  if (socket.readyState !== WebSocket.OPEN) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off('pong', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('pong', done);
    socket.on('close', done);
    socket.ping();
  });
}

describe('WebSocket liveness over loopback (virtual time)', () => {
  let app: App;
  let clock: VirtualClock;
  beforeEach(async () => {
    clock = new VirtualClock();
    app = await startApp({
      config: { fleet: { heartbeat_interval: '1s', stale_missed_heartbeats: 3 } },
      deps: { scheduler: clock.scheduler },
    });
  });
  afterEach(() => app.stop());

  it('keeps a quiet agent without heartbeats connected by pings for five intervals, and declares it gone within one interval once it stops answering', async () => {
    const agent = await WsAgent.open(app.urls.opamp, { autoPong: false });
    let answering = true;
    const pings: number[] = [];
    agent.socket.on('ping', (data: Buffer) => {
      pings.push(clock.now());
      if (answering) agent.socket.pong(data);
    });
    const uid = newUid() as InstanceUid;
    const disconnects: unknown[] = [];
    const watching = app.bus.events$.subscribe((e) => {
      if (e.type === 'AgentDisconnected' && e.data.uid === uid) disconnects.push(e);
    });
    // capabilities 1: ReportsStatus alone, no ReportsHeartbeat.
    await agent.send(agentMessage(uid, { capabilities: 1, agentDescription: description({ a: 'b' }) }));
    const start = clock.now();
    const advance = async () => {
      clock.advance(step);
      await roundTrip(agent.socket);
    };

    while (clock.now() - start < 5 * interval) await advance();
    expect(pings.length).to.be.at.least(4);
    expect(disconnects).to.deep.equal([]);
    expect(app.registry.get(uid)).to.include({ connected: true, lastSeen: start });
    expect(agent.socket.readyState).to.equal(WebSocket.OPEN);

    answering = false;
    const answered = pings.length;
    const gone = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
    while (agent.socket.readyState === WebSocket.OPEN) await advance();
    const unanswered = pings[answered]!;
    const disconnected = await gone;
    expect(disconnected.data.reason).to.equal('connection_closed');
    expect(Number(disconnected.at) - unanswered).to.be.at.most(interval);
    watching.unsubscribe();
  });

  it('closes a socket that holds no agent after the eviction threshold, never pinging it', async () => {
    const idle = await WsAgent.open(app.urls.opamp);
    let pinged = 0;
    idle.socket.on('ping', () => pinged++);
    const closed = new Promise<number>((resolve) => idle.socket.once('close', (code) => resolve(code)));
    while (idle.socket.readyState === WebSocket.OPEN) {
      clock.advance(step);
      await roundTrip(idle.socket);
    }
    expect(await closed).to.equal(1000);
    expect(pinged).to.equal(0);
  });
});
