// Own telemetry offered with the running service, over both transports (docs/own-telemetry.md): an
// agent that declares ReportsOwnMetrics gets connection_settings.own_metrics once, with the hash of
// what is offered; it is not offered again while in flight, while the agent reports that hash, after
// it reported it FAILED, nor on a new connection once the agent reported it; the status shows in
// GET /api/agents/{id} and on the agent page.

import { expect } from 'chai';
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

const ReportsOwnMetrics = 0x40;
const ReportsOwnLogs = 0x80;
const ReportsConnectionSettingsStatus = 0x8000;
const OffersConnectionSettings = 0x20;
const capabilities = 0x1 | ReportsOwnMetrics | ReportsConnectionSettingsStatus;
const Applied = 1;
const Failed = 3;

type Settings = {
  hash?: Uint8Array;
  ownMetrics?: { destinationEndpoint: string; headers?: { headers: { key: string; value: string }[] } };
  ownLogs?: { destinationEndpoint: string };
  ownTraces?: unknown;
  opamp?: unknown;
};
const settingsOf = (m: ServerToAgent | undefined) => m?.connectionSettings as Settings | undefined;
const hexOf = (m: ServerToAgent | undefined) => Buffer.from(settingsOf(m)?.hash ?? []).toString('hex');
const status = (hash: string, code: number, errorMessage = '') => ({
  connectionSettingsStatus: {
    lastConnectionSettingsHash: Buffer.from(hash, 'hex'),
    status: code,
    errorMessage,
  },
});

describe('own telemetry offered with the running service', () => {
  let app: App;
  const offers: string[] = [];
  before(async () => {
    app = await startApp({
      config: {
        own_telemetry: [
          {
            selector: 'env=prod',
            metrics: { endpoint: 'https://otlp.example:4318/v1/metrics', headers: { 'x-api-key': 'k1' } },
          },
          { selector: 'env=~".+"', logs: { endpoint: 'https://otlp.example:4318/v1/logs' } },
        ],
      },
    });
    app.bus.events$.subscribe((e: FleetEvent) => {
      if (e.type === 'AgentOwnTelemetryOffered') offers.push(e.data.uid);
    });
  });
  after(() => app.stop());

  const offersTo = (uid: string) => offers.filter((o) => o === uid).length;
  const detail = async (uid: string) =>
    ((await (await fetch(`${app.urls.ui}/api/agents/${uid}`)).json()) as Record<string, unknown>)
      .connection_settings;
  const first = (uid: string, caps = capabilities) =>
    agentMessage(uid, { capabilities: caps, agentDescription: description({ env: 'prod' }) });

  it('over WebSocket: offers own_metrics once, never again while reported, not on a new connection after', async () => {
    const uid = newUid();
    const ws = await WsAgent.open(app.urls.opamp);
    let hash: string;
    try {
      const reply = await ws.send(first(uid));
      expect(Number(reply.capabilities) & OffersConnectionSettings).to.equal(OffersConnectionSettings);
      expect(settingsOf(reply)?.ownMetrics).to.deep.equal({
        destinationEndpoint: 'https://otlp.example:4318/v1/metrics',
        headers: { headers: [{ key: 'x-api-key', value: 'k1' }] },
      });
      expect(settingsOf(reply)?.ownLogs, 'the agent does not report its logs').to.equal(undefined);
      hash = hexOf(reply);
      expect(hash).to.match(/^[0-9a-f]{64}$/);
      expect(
        settingsOf(await ws.send(agentMessage(uid, { capabilities, sequenceNum: 1 }))),
        'in flight',
      ).to.equal(undefined);
      const applied = await ws.send(
        agentMessage(uid, { capabilities, sequenceNum: 2, ...status(hash, Applied) }),
      );
      expect(settingsOf(applied)).to.equal(undefined);
      expect(await detail(uid)).to.deep.equal({
        status: { hash, status: 'applied', error_message: '' },
        offered_hash: hash,
        failed_hash: null,
      });
      const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
      expect(page).to.include('<h2>Own telemetry</h2>');
      expect(page).to.include(`title="${hash}"`);
    } finally {
      await ws.close();
    }
    const again = await WsAgent.open(app.urls.opamp);
    try {
      const reply = await again.send(
        agentMessage(uid, {
          capabilities,
          sequenceNum: 3,
          agentDescription: description({ env: 'prod' }),
          ...status(hash, Applied),
        }),
      );
      expect(settingsOf(reply), 'the agent reported it applied').to.equal(undefined);
    } finally {
      await again.close();
    }
    expect(offersTo(uid)).to.equal(1);
  });

  it('over plain HTTP: offers once, and never again after the agent reported it failed', async () => {
    const uid = newUid();
    const caps = capabilities | ReportsOwnLogs;
    const reply = await postHttp(app.urls.opamp, first(uid, caps));
    expect(settingsOf(reply.message)?.ownMetrics?.destinationEndpoint).to.equal(
      'https://otlp.example:4318/v1/metrics',
    );
    expect(settingsOf(reply.message)?.ownLogs?.destinationEndpoint).to.equal(
      'https://otlp.example:4318/v1/logs',
    );
    const hash = hexOf(reply.message);
    const poll = await postHttp(app.urls.opamp, agentMessage(uid, { capabilities: caps, sequenceNum: 1 }));
    expect(settingsOf(poll.message), 'each request is not a new connection').to.equal(undefined);
    const failed = await postHttp(
      app.urls.opamp,
      agentMessage(uid, { capabilities: caps, sequenceNum: 2, ...status(hash, Failed, 'no route to host') }),
    );
    expect(settingsOf(failed.message)).to.equal(undefined);
    expect(await detail(uid)).to.deep.include({
      status: { hash, status: 'failed', error_message: 'no route to host' },
      failed_hash: hash,
    });
    const page = await (await fetch(`${app.urls.ui}/agents/${uid}`)).text();
    expect(page).to.include('no route to host');
    // It reports another hash later (another offer of settings, say): the failed one stays refused.
    await postHttp(
      app.urls.opamp,
      agentMessage(uid, { capabilities: caps, sequenceNum: 3, ...status('00ff', Applied) }),
    );
    const later = await postHttp(app.urls.opamp, agentMessage(uid, { capabilities: caps, sequenceNum: 4 }));
    expect(settingsOf(later.message)).to.equal(undefined);
    expect(offersTo(uid)).to.equal(1);
  });

  it('offers nothing to an agent that does not declare it reports its own telemetry', async () => {
    const uid = newUid();
    const reply = await postHttp(app.urls.opamp, first(uid, 0x1));
    expect(settingsOf(reply.message)).to.equal(undefined);
    expect(await detail(uid)).to.deep.equal({ status: null, offered_hash: null, failed_hash: null });
  });
});
