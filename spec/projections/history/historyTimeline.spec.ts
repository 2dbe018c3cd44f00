// The fleet over time, end to end in virtual time: real WebSocket agents connect, one turns
// unhealthy, one leaves and is evicted, one sends garbage; every 10 virtual seconds the sampler takes
// a sample, and the series, the 24-hour mean and the rendered charts say exactly that.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { historySeries, type HistorySeries } from '../../../src/projections/history/fleetSample.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).to.equal(true);
};

describe('fleet history over a scripted fleet in virtual time', function () {
  this.timeout(20_000);
  const t0 = 1_700_000_000_000;
  const clock = new VirtualClock(t0);
  const advance = (ms: number) => clock.advance(ms);
  let app: App;
  const [a, b, c] = [newUid(), newUid(), newUid()];
  const sockets: Record<string, WsAgent> = {};
  const healthy = (ok: boolean) => ({ health: { healthy: ok, status: ok ? 'StatusOK' : 'StatusFailed' } });
  /** a and b check in (two messages), then ten seconds pass: one sample. */
  const heartbeatAndTick = async () => {
    await sockets[a]!.send(agentMessage(a, { sequenceNum: 9 }));
    await sockets[b]!.send(agentMessage(b, { sequenceNum: 9 }));
    advance(10_000);
  };
  const series = (window: '1h' | '24h', name: HistorySeries) =>
    app.history.read(window).columns[historySeries.indexOf(name)]!;

  before(async () => {
    // Disconnected after 90 s of silence, evicted after 180 s.
    app = await startApp({
      config: { fleet: { heartbeat_interval: '60s', stale_missed_heartbeats: 3 } },
      deps: { scheduler: clock.scheduler },
    });
  });
  after(async () => {
    await Promise.all(Object.values(sockets).map((s) => s.close()));
    await app.stop();
  });

  it('samples nothing before ten seconds, then an empty fleet', () => {
    expect(app.history.read('1h').at).to.deep.equal([]);
    advance(10_000);
    expect(app.history.read('1h').at).to.deep.equal([t0 + 10_000]);
    expect(series('1h', 'size')).to.deep.equal([0]);
  });

  it('counts agents that connect, their health and the message rate', async () => {
    for (const [uid, fields] of [
      [a, healthy(true)],
      [b, healthy(true)],
      [c, {}],
    ] as const) {
      sockets[uid] = await WsAgent.open(app.urls.opamp);
      await sockets[uid].send(
        agentMessage(uid, { agentDescription: description({ 'service.name': uid }), ...fields }),
      );
    }
    advance(10_000);
    expect(series('1h', 'size').at(-1)).to.equal(3);
    expect(series('1h', 'connected').at(-1)).to.equal(3);
    expect(series('1h', 'healthy').at(-1)).to.equal(2);
    expect(series('1h', 'unknown').at(-1)).to.equal(1);
    expect(series('1h', 'messages_per_second').at(-1)).to.be.closeTo(0.3, 1e-9);
    expect(series('1h', 'errors_per_second').at(-1)).to.equal(0);
  });

  it('sees an agent turn unhealthy and a message that cannot be read', async () => {
    await sockets[b]!.send(agentMessage(b, healthy(false)));
    expect((await postHttp(app.urls.opamp, new Uint8Array([0xff, 0xff, 0xff]))).status).to.equal(400);
    await sockets[a]!.send(agentMessage(a, { sequenceNum: 1 }));
    advance(10_000);
    expect(series('1h', 'healthy').at(-1)).to.equal(1);
    expect(series('1h', 'unhealthy').at(-1)).to.equal(1);
    expect(series('1h', 'connected').at(-1)).to.equal(3);
    // The unreadable message counts as a message and as an error, as svc_opamp_messages_total does.
    expect(series('1h', 'messages_per_second').at(-1)).to.be.closeTo(0.3, 1e-9);
    expect(series('1h', 'errors_per_second').at(-1)).to.be.closeTo(0.1, 1e-9);
  });

  it('sees an agent leave, then its eviction 180 s after it left', async () => {
    await sockets[c]!.close();
    await until(() => app.registry.get(c as InstanceUid)?.connected === false);
    // A WebSocket agent is alive while its socket is: its eviction counts from the close.
    const leftAt = app.registry.get(c as InstanceUid)!.connectionChangedAt;
    await heartbeatAndTick();
    expect(series('1h', 'connected').at(-1)).to.equal(2);
    expect(series('1h', 'size').at(-1)).to.equal(3);
    while (clock.now() < leftAt + 200_000) await heartbeatAndTick();
    const { at } = app.history.read('1h');
    const size = series('1h', 'size');
    const evictedAt = at[size.indexOf(2)]!;
    // The sweep evicts c within a second of 180 s gone; the next sample is the first without it.
    expect(evictedAt).to.equal(Math.ceil((leftAt + 180_000 + 1) / 10_000) * 10_000);
    expect(size.slice(size.indexOf(2))).to.satisfy((s: number[]) => s.every((n) => n === 2));
    expect(series('1h', 'messages_per_second').at(-1)).to.be.closeTo(0.2, 1e-9);
  });

  it('folds every 30 samples into one 24-hour point: their mean', async () => {
    while (app.history.read('1h').at.length < 30) await heartbeatAndTick();
    const coarse = app.history.read('24h');
    expect(coarse.at).to.deep.equal([t0 + 300_000]);
    const first30 = (name: HistorySeries) => series('1h', name).slice(0, 30);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    for (const name of ['size', 'connected', 'healthy', 'messages_per_second'] as const)
      expect(series('24h', name)[0], name).to.be.closeTo(mean(first30(name)), 1e-9);
  });

  it('renders the last hour on the status page, the latest values in the legend', async () => {
    const html = await (await fetch(`${app.urls.ui}/partials/history?window=1h`)).text();
    expect(html).to.match(/aria-label="Fleet size, last 60 min: Registered 2, Connected 2"/);
    expect(html).to.match(/aria-label="Health, last 60 min: Healthy 1, Unhealthy 1, Unknown 0"/);
    expect(html).to.contain('class="chart-line line-size"');
  });
});
