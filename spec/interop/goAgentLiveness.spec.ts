// opamp-go's client library as a quiet WebSocket agent (tools/peers/agent with its heartbeats off):
// the service keeps it connected by pings, which the library answers, for five heartbeat intervals
// without a message; when the process stops answering (SIGSTOP) its socket is cut and the agent
// disconnected; once it runs again the library reconnects on its own. The exact timing is proven in
// virtual time in spec/io/opamp/wsLiveness.spec.ts; here the peer is real.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { App } from '../../src/app.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { nextEvent } from '../support/busWaiter.ts';
import { startApp } from '../support/startApp.ts';
import { agentWhen } from './support/fleetApi.ts';
import { startGoAgent } from './support/goAgent.ts';
import type { PeerProcess } from './support/peerProcess.ts';

const intervalMs = 1000;

describe("opamp-go's client library as a quiet WebSocket agent (real peer)", function () {
  this.timeout(90_000);
  let app: App;
  let agent: PeerProcess | undefined;
  let stopped = false;
  beforeEach(async () => {
    app = await startApp({ config: { fleet: { heartbeat_interval: '1s', stale_missed_heartbeats: 3 } } });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-6_000));
    if (stopped && agent) process.kill(-agent.pid, 'SIGCONT');
    await agent?.stop();
    agent = undefined;
    await app.stop();
  });

  it('stays connected by pings for five intervals without a message, is cut once it answers nothing, and comes back', async function () {
    const uid = randomUUID();
    const disconnects: string[] = [];
    const watching = app.bus.events$.subscribe((e) => {
      if (e.type === 'AgentDisconnected' && e.data.uid === uid) disconnects.push(e.data.reason);
    });
    try {
      // `-heartbeat 0s`: opamp-go sends no heartbeats at all.
      agent = startGoAgent(this, {
        opampUrl: app.urls.opamp,
        transport: 'ws',
        uid,
        args: ['-heartbeat', '0s'],
      });
      const reported = await agentWhen(app, uid, (a) => a.health_reported === true, 'the agent to report');
      const quietSince = Date.parse(String(reported.last_seen));
      await agentWhen(
        app,
        uid,
        (a) => Date.now() - Date.parse(String(a.last_seen)) > 5 * intervalMs,
        'five quiet intervals',
      );
      const quiet = app.registry.get(uid as InstanceUid)!;
      expect(quiet.connected).to.equal(true);
      expect(quiet.lastSeen).to.equal(quietSince);
      expect(disconnects).to.deep.equal([]);

      const cut = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
      process.kill(-agent.pid, 'SIGSTOP');
      stopped = true;
      expect((await cut).data.reason).to.equal('connection_closed');

      // The library reconnects after its own backoff: longer than nextEvent waits.
      const back = firstValueFrom(
        app.bus.events$.pipe(
          filter((e) => e.type === 'AgentConnected' && e.data.uid === uid),
          timeout({ first: 60_000 }),
        ),
      );
      process.kill(-agent.pid, 'SIGCONT');
      stopped = false;
      await back;
    } finally {
      watching.unsubscribe();
    }
  });
});
