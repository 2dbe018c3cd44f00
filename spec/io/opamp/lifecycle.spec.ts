import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

describe('agent lifecycle over loopback (virtual time)', () => {
  let app: App;
  let clock: VirtualClock;
  beforeEach(async () => {
    clock = new VirtualClock();
    app = await startApp({
      config: { fleet: { heartbeat_interval: '1s', stale_missed_heartbeats: 3 } },
      deps: { scheduler: clock.scheduler },
    });
  });
  afterEach(async () => {
    await app.stop();
  });

  it('connects, disconnects at once on socket close, reconnects, and is evicted after the threshold', async () => {
    const uid = newUid() as InstanceUid;
    const first = await WsAgent.open(app.urls.opamp);
    await first.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'svc' }) }));
    const firstSeen = app.registry.get(uid)!.firstSeen;
    expect(app.registry.get(uid)?.connected).to.equal(true);

    const disconnected = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
    clock.advance(200);
    await first.close();
    expect((await disconnected).data.reason).to.equal('connection_closed');
    expect(app.registry.get(uid)).to.include({ connected: false, lastSeen: firstSeen });

    const second = await WsAgent.open(app.urls.opamp);
    const reconnected = nextEvent(app.bus, 'AgentConnected', (e) => e.data.uid === uid);
    await second.send(agentMessage(uid, { sequenceNum: 1 }));
    await reconnected;
    expect(app.registry.get(uid)).to.include({ connected: true, firstSeen });

    // The clock jumps past the ping and its pong wait at once: the socket answered nothing, it is cut,
    // and the agent is evicted once the threshold has passed since that disconnect.
    const cut = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
    clock.advance(1700);
    expect((await cut).data.reason).to.equal('connection_closed');
    const cutAt = app.registry.get(uid)!.connectionChangedAt;
    clock.advance(cutAt + 3000 - clock.now());
    expect(app.registry.get(uid)?.connected).to.equal(false);
    clock.advance(1000);
    expect(app.registry.get(uid)).to.equal(undefined);

    // The agent comes back on a new socket.
    await second.close();
    const third = await WsAgent.open(app.urls.opamp);
    const back = await third.send(agentMessage(uid, { sequenceNum: 2 }));
    expect(back.flags).to.equal('1');
    expect(app.registry.get(uid)).to.include({ firstSeen: clock.now(), description: null });
    await third.close();
  });

  it('disconnects at once on agent_disconnect, on either transport', async () => {
    const wsUid = newUid() as InstanceUid;
    const ws = await WsAgent.open(app.urls.opamp);
    await ws.send(agentMessage(wsUid, { agentDescription: description({ a: 'b' }) }));
    await ws.send(agentMessage(wsUid, { sequenceNum: 1, agentDisconnect: {} }));
    expect(app.registry.get(wsUid)?.connected).to.equal(false);

    const httpUid = newUid() as InstanceUid;
    await postHttp(app.urls.opamp, agentMessage(httpUid, { agentDescription: description({ a: 'b' }) }));
    expect(app.registry.get(httpUid)?.connected).to.equal(true);
    await postHttp(app.urls.opamp, agentMessage(httpUid, { sequenceNum: 1, agentDisconnect: {} }));
    expect(app.registry.get(httpUid)?.connected).to.equal(false);
    await ws.close();
  });

  it('counts a repeated goodbye once: the second changes nothing, on either transport', async () => {
    const counter = async (name: string) =>
      (await app.telemetry.fleet.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
    const counts = async () => [
      await counter('svc_agent_connects_total'),
      await counter('svc_agent_disconnects_total'),
    ];
    const wsUid = newUid() as InstanceUid;
    const ws = await WsAgent.open(app.urls.opamp);
    await ws.send(agentMessage(wsUid, { agentDescription: description({ a: 'b' }) }));
    await ws.send(agentMessage(wsUid, { sequenceNum: 1, agentDisconnect: {} }));
    const httpUid = newUid() as InstanceUid;
    await postHttp(app.urls.opamp, agentMessage(httpUid, { agentDescription: description({ a: 'b' }) }));
    await postHttp(app.urls.opamp, agentMessage(httpUid, { sequenceNum: 1, agentDisconnect: {} }));
    expect(await counts()).to.deep.equal([2, 2]);
    const before = { ws: app.registry.get(wsUid), http: app.registry.get(httpUid) };

    clock.advance(100);
    await ws.send(agentMessage(wsUid, { sequenceNum: 2, agentDisconnect: {} }));
    await postHttp(app.urls.opamp, agentMessage(httpUid, { sequenceNum: 2, agentDisconnect: {} }));
    expect(await counts()).to.deep.equal([2, 2]);
    expect({ ws: app.registry.get(wsUid), http: app.registry.get(httpUid) }).to.deep.equal(before);
    await ws.close();
  });

  it('keeps an HTTP poller connected between polls within the threshold', async () => {
    const uid = newUid() as InstanceUid;
    const flips: string[] = [];
    const sub = app.bus.events$.subscribe((e) => {
      if (e.type === 'AgentDisconnected' || e.type === 'AgentConnected') flips.push(e.type);
    });
    for (let seq = 0; seq < 6; seq++) {
      await postHttp(
        app.urls.opamp,
        agentMessage(uid, { sequenceNum: seq, agentDescription: description({ a: 'b' }) }),
      );
      clock.advance(1400);
    }
    sub.unsubscribe();
    expect(flips).to.deep.equal(['AgentConnected']);
    expect(app.registry.get(uid)?.connected).to.equal(true);
  });

  it('leaves an agent connected when an old socket of it closes after it moved to a new one', async () => {
    const uid = newUid() as InstanceUid;
    const old = await WsAgent.open(app.urls.opamp);
    await old.send(agentMessage(uid, { agentDescription: description({ a: 'b' }) }));
    const fresh = await WsAgent.open(app.urls.opamp);
    await fresh.send(agentMessage(uid, { sequenceNum: 1 }));
    await old.close();
    await fresh.send(agentMessage(uid, { sequenceNum: 2 }));
    expect(app.registry.get(uid)?.connected).to.equal(true);
    await fresh.close();
  });
});
