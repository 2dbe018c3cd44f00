import { expect } from 'chai';
import WebSocket from 'ws';
import { agentMessage, newUid, postHttp, WsAgent } from './support/agentClient.ts';
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
    const app = await startApp({ config: { shutdown: { drain_delay: '300ms' } } });
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
});
