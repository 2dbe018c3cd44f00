import { expect } from 'chai';
import WebSocket from 'ws';
import type { InstanceUid } from '../src/events/ids.ts';
import { agentMessage, newUid, postHttp, WsAgent } from './support/agentClient.ts';
import { nextEvent } from './support/busWaiter.ts';
import { openSilentPeer } from './support/silentPeer.ts';
import { startApp } from './support/startApp.ts';

describe('probes and graceful shutdown', () => {
  it('answers /healthz and /readyz with ok once every listener is bound', async () => {
    const app = await startApp();
    try {
      for (const path of ['/healthz', '/readyz']) {
        const res = await fetch(`${app.urls.telemetry}${path}`);
        expect(res.status).to.equal(200);
        expect(await res.text()).to.equal('ok');
      }
    } finally {
      await app.stop();
    }
  });

  it('drains: not ready at once, new OpAMP connections get 503, open sockets get a going-away close', async () => {
    // Long enough for the refused requests below on a loaded machine: after it the listener closes.
    const app = await startApp({ config: { shutdown: { drain_delay: '1s' } } });
    const agent = await WsAgent.open(app.urls.opamp);
    await agent.send(agentMessage(newUid()));
    const closed = new Promise<number>((resolve) => agent.socket.once('close', (code) => resolve(code)));

    const stopping = app.stop();
    const ready = await fetch(`${app.urls.telemetry}/readyz`);
    expect(ready.status).to.equal(503);
    expect(await ready.text()).to.equal('draining');
    expect((await fetch(`${app.urls.telemetry}/healthz`)).status).to.equal(200);

    expect((await postHttp(app.urls.opamp, agentMessage(newUid()))).status).to.equal(503);
    const refused = new WebSocket(`${app.urls.opamp.replace('http', 'ws')}/v1/opamp`);
    const status = await new Promise<number>((resolve) =>
      refused.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).to.equal(503);

    expect(await closed).to.equal(1001);
    await stopping;
  });

  it('cuts a peer that never answers the close frame after shutdown.close_timeout, and counts it', async function () {
    // Without the cut, ws waits 30 s for the peer's answer: longer than this spec may take.
    this.timeout(10_000);
    const app = await startApp({ config: { shutdown: { drain_delay: '0s', close_timeout: '500ms' } } });
    const polite = await WsAgent.open(app.urls.opamp);
    await polite.send(agentMessage(newUid()));
    const politeClosed = new Promise<number>((resolve) =>
      polite.socket.once('close', (code) => resolve(code)),
    );
    const uid = newUid() as InstanceUid;
    const connected = nextEvent(app.bus, 'AgentConnected', (e) => e.data.uid === uid);
    const silent = await openSilentPeer(app.urls.opamp, agentMessage(uid));
    await connected;
    const disconnected = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);

    await app.stop();
    await silent.ended();
    expect(await politeClosed).to.equal(1001);
    expect((await disconnected).data.reason).to.equal('connection_closed');
    const counted = await app.telemetry.server
      .getSingleMetric('svc_shutdown_sockets_terminated_total')
      ?.get();
    expect(counted?.values.map((v) => v.value)).to.deep.equal([1]);
  });
});
