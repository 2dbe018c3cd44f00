// A config naming a component type the agent reported it lacks is never sent (issue 24), with real
// clients over both transports against the running service: the agent's config_state is
// `incompatible` with the missing types in the API, the list filter and the agent page; the preview
// counts it apart; once the agent reports the type, the config is sent in the reply.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import {
  agentMessage,
  description,
  newUid,
  postHttp,
  WsAgent,
  type ServerToAgent,
} from '../../support/agentClient.ts';
import { startApp } from '../../support/startApp.ts';

// ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig | ReportsAvailableComponents
const capabilities = 0x1 | 0x2 | 0x1000 | 0x4000;
const body = dump({
  receivers: { otlp: { protocols: { http: {} } } },
  exporters: { 'kafka/eu': {}, debug: {} },
  service: { pipelines: { logs: { receivers: ['otlp'], exporters: ['kafka/eu', 'debug'] } } },
});
const components = (exporters: string[]) => ({
  hash: Buffer.from(exporters.join(',')),
  components: {
    receivers: { subComponentMap: { otlp: {}, nop: {} } },
    processors: { subComponentMap: { batch: {} } },
    exporters: { subComponentMap: Object.fromEntries(exporters.map((e) => [e, {}])) },
    extensions: { subComponentMap: {} },
    connectors: { subComponentMap: {} },
  },
});
const first = (uid: string, exporters: string[], attributes: Record<string, string> = {}) =>
  agentMessage(uid, {
    capabilities,
    agentDescription: description({ 'service.name': 'incompat', ...attributes }),
    availableComponents: components(exporters),
    remoteConfigStatus: { status: 0 },
  });
const sentHash = (m: ServerToAgent | undefined) =>
  m?.remoteConfig?.configHash ? Buffer.from(m.remoteConfig.configHash).toString('hex') : undefined;

interface Remote {
  config_state: string;
  desired_hash: string;
  missing_components: Record<string, string[]>;
}

describe('a config naming a component type the agent lacks', () => {
  let dir: string;
  let app: App;
  let offers: string[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
    writeFileSync(join(dir, 'kafka.yaml'), dump({ selector: 'service.name=incompat', body }));
    app = await startApp({ config: { remote_config: { dir } } });
    offers = [];
    app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentRemoteConfigOffered') offers.push(e.data.uid);
    });
  });
  after(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${app.urls.ui}${path}`, init);
    expect(res.status, path).to.equal(200);
    return (await res.json()) as T;
  };
  const remoteOf = async (uid: string) =>
    (await api<{ remote_config: Remote }>(`/api/agents/${uid}`)).remote_config;

  async function expectIncompatible(uid: string): Promise<void> {
    const remote = await remoteOf(uid);
    expect(remote).to.deep.include({
      config_state: 'incompatible',
      missing_components: { exporters: ['kafka'] },
    });
    const list = await api<{ agents: { instance_uid: string }[] }>('/api/agents?config_state=incompatible');
    expect(list.agents.map((a) => a.instance_uid)).to.include(uid);
    const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
    expect(page).to.include('Incompatible</span>');
    expect(page).to.include('<li class="mono">exporters/kafka</li>');
    expect(
      offers.filter((o) => o === uid),
      'offers',
    ).to.have.length(0);
  }

  it('over WebSocket: is not sent, shows incompatible, and is sent once the agent reports the type', async () => {
    const uid = newUid();
    const ws = await WsAgent.open(app.urls.opamp);
    try {
      expect(sentHash(await ws.send(first(uid, ['debug', 'nop']))), 'the first reply').to.equal(undefined);
      for (let seq = 1; seq <= 3; seq++)
        expect(
          sentHash(await ws.send(agentMessage(uid, { capabilities, sequenceNum: seq }))),
          `message ${seq}`,
        ).to.equal(undefined);
      await expectIncompatible(uid);
      const able = agentMessage(uid, {
        capabilities,
        sequenceNum: 4,
        availableComponents: components(['debug', 'kafka', 'nop']),
      });
      const reply = await ws.send(able);
      const remote = await remoteOf(uid);
      expect(sentHash(reply), 'the reply to the report that makes it compatible').to.equal(
        remote.desired_hash,
      );
      expect(remote).to.deep.include({ config_state: 'pending', missing_components: {} });
    } finally {
      await ws.close();
    }
  });

  it('over plain HTTP: is not sent, shows incompatible, and is sent once the agent reports the type', async () => {
    const uid = newUid();
    expect(sentHash((await postHttp(app.urls.opamp, first(uid, ['debug']))).message)).to.equal(undefined);
    for (let seq = 1; seq <= 3; seq++) {
      const poll = await postHttp(app.urls.opamp, agentMessage(uid, { capabilities, sequenceNum: seq }));
      expect(sentHash(poll.message), `poll ${seq}`).to.equal(undefined);
    }
    await expectIncompatible(uid);
    const able = agentMessage(uid, {
      capabilities,
      sequenceNum: 4,
      availableComponents: components(['debug', 'kafka']),
    });
    expect(sentHash((await postHttp(app.urls.opamp, able)).message)).to.equal(
      (await remoteOf(uid)).desired_hash,
    );
  });

  it('is sent as before to an agent that did not report its components', async () => {
    const uid = newUid();
    const message = agentMessage(uid, {
      capabilities: capabilities & ~0x4000,
      agentDescription: description({ 'service.name': 'incompat' }),
      remoteConfigStatus: { status: 0 },
    });
    const reply = await postHttp(app.urls.opamp, message);
    expect(sentHash(reply.message)).to.equal((await remoteOf(uid)).desired_hash);
  });

  it('is counted apart by the preview', async () => {
    const uid = newUid();
    await postHttp(app.urls.opamp, first(uid, ['debug'], { 'preview.key': uid }));
    const preview = await api<{
      incompatible: number;
      agents: { instance_uid: string; missing_components_after: Record<string, string[]> }[];
    }>('/api/configs/preview', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selector: `preview.key=${uid}`, body }),
    });
    expect(preview.incompatible).to.equal(1);
    expect(preview.agents.find((a) => a.instance_uid === uid)?.missing_components_after).to.deep.equal({
      exporters: ['kafka'],
    });
  });
});
