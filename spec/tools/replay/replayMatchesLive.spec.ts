import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { openRecording } from '../../../src/io/recorder/recordingReader.ts';
import type { App } from '../../../src/app.ts';
import { agentJson } from '../../../tools/replay/agentJson.ts';
import { replayOffline } from '../../../tools/replay/replayOffline.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

const registryJson = (app: Pick<App, 'registry'>) => [...app.registry.ordered()].map(agentJson);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).to.equal(true);
}

/** A scripted session over both transports and a gateway, with a bad message, a disconnect and closes. */
async function script(app: App): Promise<void> {
  const url = app.urls.opamp;
  const [a, b, c, relayed] = [newUid(), newUid(), newUid(), newUid()];
  const wsA = await WsAgent.open(url);
  await wsA.send(
    agentMessage(a, {
      sequenceNum: 0,
      capabilities: 0x1 | 0x800 | 0x4,
      agentDescription: description(
        { 'service.name': 'checkout', 'service.version': '1.2.3' },
        { 'host.name': 'h1', healthy: 'x' },
      ),
      health: { healthy: true, status: 'StatusOK', startTimeUnixNano: 1 },
      effectiveConfig: {
        configMap: { configMap: { '': { body: Buffer.from('receivers: {}'), contentType: 'text/yaml' } } },
      },
    }),
  );
  await wsA.send(
    agentMessage(a, {
      sequenceNum: 1,
      capabilities: 0x1 | 0x800 | 0x4,
      health: { healthy: false, lastError: 'exporter down' },
    }),
  );
  await wsA.send(agentMessage(a, { sequenceNum: 5, capabilities: 0x1 | 0x800 | 0x4 })); // a gap: full state requested
  await postHttp(url, agentMessage(b, { agentDescription: description({ 'service.name': 'billing' }) }));
  await postHttp(url, agentMessage(b, { sequenceNum: 1, agentDisconnect: {} }));
  await postHttp(url, Uint8Array.from([0xff, 0xff, 0xff])); // undecodable: rejected, still recorded
  const wsC = await WsAgent.open(url);
  await wsC.send(agentMessage(c)); // no description yet
  const gateway = await WsAgent.open(url);
  const connect = { request_uid: 'r1', remote_address: '10.0.0.9:1234', headers: {} };
  await gateway.send(
    encodeAgentToServer({
      customMessage: {
        capability: 'com.vendor.opamp-gateway',
        type: 'connect',
        data: Buffer.from(JSON.stringify(connect)),
      },
    }),
  );
  await gateway.send(agentMessage(relayed, { agentDescription: description({ 'service.name': 'edge' }) }));
  await wsC.close();
  await gateway.close();
  await until(() => [c, relayed].every((uid) => app.registry.get(uid as never)?.connected === false));
  await wsA.send(agentMessage(a, { sequenceNum: 6 }));
  await wsA.close();
  await until(() => app.registry.get(a as never)?.connected === false);
}

describe('replay of a recorded session', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'replay-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('rebuilds the registry the live service had', async () => {
    const file = join(dir, 'session.opamprec');
    const app = await startApp({
      config: { debug: { record_file: file }, fleet: { required_attributes: ['service.version'] } },
    });
    let live: unknown[];
    try {
      await script(app);
      live = registryJson(app);
    } finally {
      await app.stop();
    }
    expect(live).to.have.length(4);

    const replayed = await replayOffline(await openRecording(file));
    expect(replayed.read.truncated).to.equal(null);
    expect(replayed.rejected).to.equal(1);
    expect(replayed.closes).to.be.greaterThanOrEqual(3);
    expect(registryJson(replayed)).to.deep.equal(live);
  });

  it('gives the same timelines and registry on every run', async () => {
    const file = join(dir, 'session.opamprec');
    const app = await startApp({ config: { debug: { record_file: file } } });
    try {
      await script(app);
    } finally {
      await app.stop();
    }
    const run = async () => {
      const r = await replayOffline(await openRecording(file));
      return { registry: registryJson(r), timelines: [...r.timelines] };
    };
    const first = await run();
    expect(await run()).to.deep.equal(first);
    const kinds = first.timelines.flatMap(([, t]) => t.entries.map((e) => e.event));
    expect(kinds).to.include.members([
      'connected',
      'report',
      'health_changed',
      'full_state_requested',
      'disconnected',
    ]);
  });
});
