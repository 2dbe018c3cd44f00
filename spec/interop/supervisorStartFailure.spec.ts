// A config that passes the Collector's validation but fails at start, with the real supervisor
// v0.149.0 (which has no automatic config rollback: docs/interop.md): the supervisor reports
// APPLYING, then FAILED with its own text, and restarts the Collector with the same config every 5 s.
// The service shows `failed` (not `rolled_back`: nothing went back) and offers the config once however
// often the Collector is restarted; a changed config is then offered and brings the Collector back.

import { expect } from 'chai';
import { dump } from 'js-yaml';
import type { Subscription } from 'rxjs';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import { eventually } from '../persistence/eventually.ts';
import { freePort } from '../support/postgres.ts';
import { startSupervisor, type RunningPeer, type Transport } from './support/collectorPeers.ts';
import { startConfigDirService, type ConfigDirService } from './support/configDirService.ts';
import { agentWhen, type Json } from './support/fleetApi.ts';

const remoteOf = (a: Json) => a.remote_config as Json;

/** Two OTLP receivers on one port: valid to `otelcol validate`, the second bind fails at start. */
function portClash(port: number): string {
  const otlp = { protocols: { http: { endpoint: `127.0.0.1:${port}` } } };
  return dump({
    receivers: { otlp, 'otlp/again': otlp },
    exporters: { debug: {} },
    service: { pipelines: { logs: { receivers: ['otlp', 'otlp/again'], exporters: ['debug'] } } },
  });
}

describe('a config that fails at start under the real supervisor is not offered again', function () {
  this.timeout(180_000);
  let service: ConfigDirService;
  let peer: RunningPeer | undefined;
  /** The Collector processes the supervisor reported as exited (their PIDs, from health). */
  let exited: Set<string>;
  let sub: Subscription;
  beforeEach(async () => {
    service = await startConfigDirService();
    exited = new Set();
    sub = service.app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type !== 'AgentHealthReported') return;
      const pid = /^Agent process PID=(\d+) exited unexpectedly/.exec(e.data.health.lastError)?.[1];
      if (pid !== undefined) exited.add(pid);
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && peer) console.log(peer.process.output().slice(-8_000));
    sub.unsubscribe();
    await peer?.stop();
    peer = undefined;
    await service.stop();
  });

  for (const transport of ['ws', 'http'] as Transport[]) {
    it(`over ${transport}: failed with the supervisor's text, offered once through its restarts`, async function () {
      const { app } = service;
      peer = await startSupervisor(this, { transport, opampUrl: app.urls.opamp, validateConfig: true });
      const uid = peer.uid;
      await agentWhen(app, uid, (a) => a.healthy === true, 'the Collector to run');
      await service.target('40-clash', uid, portClash(await freePort()));
      const failed = await agentWhen(
        app,
        uid,
        (a) => a.config_state === 'failed',
        'the config to fail',
        120_000,
      );
      const remote = remoteOf(failed);
      expect(remote).to.include({ status: 'failed', rolled_back_from: null });
      expect(remote.error_message).to.match(
        /^Agent exited unexpectedly with exit code 1 while applying configuration/,
      );
      expect(remote.reported_hash).to.equal(remote.desired_hash);
      // The supervisor starts the Collector again and again with that config (every 5 s).
      await eventually(() => Promise.resolve(exited.size >= 3), 'three Collector processes to exit', {
        timeoutMs: 60_000,
        everyMs: 200,
      });
      const still = await agentWhen(app, uid, () => true, 'the agent');
      expect(still.config_state).to.equal('failed');
      expect(service.offersOf(uid, String(remote.desired_hash))).to.equal(1);

      await service.target('40-clash', uid, dump({ receivers: { nop: {} } }));
      const fixed = await agentWhen(
        app,
        uid,
        (a) => a.config_state === 'applied' && a.healthy === true,
        'the changed config applied',
        120_000,
      );
      expect(remoteOf(fixed).reported_hash).to.not.equal(remote.desired_hash);
      expect(service.offersOf(uid, String(remoteOf(fixed).desired_hash))).to.equal(1);
    });
  }
});
