// An instance id belongs to the connection and the credential that first present it (issue 22;
// docs/security.md "Who may speak for an instance id"): impostors of a live agent in open mode and
// of a token-bound agent, refused over both transports while the rightful agent keeps its config,
// health and connection; the token's selector.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createOpAMPClient } from '@elastic/opamp-client-node';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { instanceUidBytes } from '../../../src/io/opamp/instanceUid.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { configChanged, revision } from '../../support/configs.ts';
import { refusedDuring } from '../../support/opampRefusals.ts';
import { startApp } from '../../support/startApp.ts';

const ReportsStatus = 0x1;
const AcceptsRemoteConfig = 0x2;
const ReportsHealth = 0x800;
const capabilities = ReportsStatus | AcceptsRemoteConfig | ReportsHealth;
const BadRequest = 1;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A full report of `uid`: its description and health. */
const report = (uid: string, healthy: boolean, attrs: Record<string, string>, sequenceNum = 0) =>
  agentMessage(uid, {
    capabilities,
    sequenceNum,
    agentDescription: description(attrs),
    health: { healthy, status: healthy ? 'ok' : 'broken by an impostor' },
  });

/** Checks the rightful agent kept what it reported and its connection, and still gets pushes. */
async function expectUntouched(app: App, victim: WsAgent, uid: string): Promise<void> {
  const agent = app.registry.get(uid as InstanceUid);
  expect(agent?.health?.healthy, 'health').to.equal(true);
  expect(agent?.description?.identifying, 'description').to.deep.equal({ 'service.name': 'victim' });
  expect(agent?.connected).to.equal(true);
  app.bus.publish(configChanged(revision('victim-config', 'service.name=victim', 'b: 2\n', { revision: 2 })));
  const pushed = await victim.next();
  expect(pushed.remoteConfig?.config.configMap['victim-config']?.body, 'the next push').to.not.equal(
    undefined,
  );
}

describe('an instance id held by a live connection (open mode)', () => {
  let app: App;
  beforeEach(async () => {
    app = await startApp();
    app.bus.publish(configChanged(revision('victim-config', 'service.name=victim', 'secret: 1\n')));
  });
  afterEach(() => app.stop());

  it('refuses an impostor over WebSocket and plain HTTP: no config, health or connection taken', async () => {
    const uid = newUid();
    const victim = await WsAgent.open(app.urls.opamp);
    const first = await victim.send(report(uid, true, { 'service.name': 'victim' }));
    expect(first.remoteConfig, 'the rightful agent gets its config').to.not.equal(undefined);

    const impostor = await WsAgent.open(app.urls.opamp);
    const refused = await refusedDuring(app, 'uid_bound_elsewhere', async () => {
      const ws = await impostor.send(report(uid, false, { 'service.name': 'victim' }));
      expect(ws.errorResponse).to.deep.include({ type: BadRequest });
      expect(ws.errorResponse?.errorMessage).to.match(/held by another connection/);
      expect(ws.remoteConfig, 'no config for the impostor').to.equal(undefined);
      const http = await postHttp(app.urls.opamp, report(uid, false, { 'service.name': 'victim' }));
      expect(http.status).to.equal(200);
      expect(http.message?.errorResponse).to.deep.include({ type: BadRequest });
      expect(http.message?.remoteConfig).to.equal(undefined);
    });
    expect(refused).to.equal(2);
    await expectUntouched(app, victim, uid);
    await impostor.close();
    await victim.close();
  });

  it('lets another connection take the id once its holder has gone', async () => {
    const uid = newUid();
    const first = await WsAgent.open(app.urls.opamp);
    await first.send(report(uid, true, { 'service.name': 'a' }));
    const gone = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
    await first.close();
    await gone;
    const second = await WsAgent.open(app.urls.opamp);
    const reply = await second.send(report(uid, true, { 'service.name': 'a' }));
    expect(reply.errorResponse).to.equal(undefined);
    expect(app.registry.get(uid as InstanceUid)?.connected).to.equal(true);
    const detail = (await (await fetch(`${app.urls.ui}/api/agents/${uid}`)).json()) as {
      credential: unknown;
    };
    expect(detail.credential, 'open mode binds nothing').to.equal(null);
    await second.close();
  });
});

describe('an instance id bound to an enrollment token', () => {
  const tokenA = 'enroll-a-5d1e0c';
  const tokenB = 'enroll-b-93aa27';
  const prodToken = 'enroll-prod-77f0';
  let app: App;
  before(async () => {
    app = await startApp({
      config: {
        agents: {
          tokens: [
            { name: 'fleet-a', sha256: sha256(tokenA) },
            { name: 'fleet-b', sha256: sha256(tokenB) },
            { name: 'prod-only', sha256: sha256(prodToken), selector: 'env=prod' },
          ],
        },
      },
    });
    app.bus.publish(configChanged(revision('victim-config', 'service.name=victim', 'secret: 1\n')));
  });
  after(() => app.stop());

  it("refuses another token's impostor over both transports; the rightful agent keeps everything", async () => {
    const uid = newUid();
    const victim = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
    expect((await victim.send(report(uid, true, { 'service.name': 'victim' }))).errorResponse).to.equal(
      undefined,
    );
    const refused = await refusedDuring(app, 'uid_bound_elsewhere', async () => {
      const impostor = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenB) });
      const ws = await impostor.send(report(uid, false, { 'service.name': 'victim' }));
      expect(ws.errorResponse?.type).to.equal(BadRequest);
      expect(ws.errorResponse?.errorMessage).to.match(/belongs to another credential/);
      expect(ws.remoteConfig).to.equal(undefined);
      await impostor.close();
      const http = await postHttp(app.urls.opamp, report(uid, false, {}), bearer(tokenB));
      expect(http.message?.errorResponse?.type).to.equal(BadRequest);
    });
    expect(refused).to.equal(2);
    await expectUntouched(app, victim, uid);
    const detail = (await (await fetch(`${app.urls.ui}/api/agents/${uid}`)).json()) as {
      credential: unknown;
    };
    expect(detail.credential, 'the API names the holder, never the token').to.deep.include({
      kind: 'token',
      name: 'fleet-a',
      serial: null,
      revoked_at: null,
    });
    await victim.close();
  });

  it('lets the same credential take its id over from a socket that is still open (a reconnect)', async () => {
    const uid = newUid();
    const old = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
    await old.send(report(uid, true, { 'service.name': 'a' }));
    const fresh = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
    expect((await fresh.send(report(uid, true, { 'service.name': 'a' }, 1))).errorResponse).to.equal(
      undefined,
    );
    expect(app.registry.get(uid as InstanceUid)?.sequenceNum).to.equal(1n);
    await old.close();
    await fresh.close();
  });

  it("serves Elastic's client with its token header, and refuses an impostor with another token", async () => {
    const id = newUid();
    const uidBytes = instanceUidBytes(id);
    const described = nextEvent(app.bus, 'AgentStatusReported', (e) => e.data.uid === id);
    const client = createOpAMPClient({
      endpoint: `${app.urls.opamp}/v1/opamp`,
      instanceUid: uidBytes,
      heartbeatIntervalSeconds: 100,
      headers: bearer(tokenA),
    });
    client.setAgentDescription({ identifyingAttributes: { 'service.name': 'elastic' } });
    client.start();
    try {
      await described;
      const impostor = await postHttp(app.urls.opamp, report(id, false, {}), bearer(tokenB));
      expect(impostor.message?.errorResponse?.type).to.equal(BadRequest);
      expect(app.registry.get(id as InstanceUid)?.description?.identifying).to.deep.equal({
        'service.name': 'elastic',
      });
    } finally {
      await client.shutdown();
    }
  });

  it("refuses a description outside the token's selector, with the reason, and folds nothing", async () => {
    const uid = newUid();
    const refused = await refusedDuring(app, 'selector', async () => {
      const dev = await postHttp(app.urls.opamp, report(uid, true, { env: 'dev' }), bearer(prodToken));
      expect(dev.message?.errorResponse?.type).to.equal(BadRequest);
      expect(dev.message?.errorResponse?.errorMessage).to.match(/selector env=prod/);
    });
    expect(refused).to.equal(1);
    expect(app.registry.get(uid as InstanceUid)).to.equal(undefined);
    const prod = await postHttp(app.urls.opamp, report(uid, true, { env: 'prod' }), bearer(prodToken));
    expect(prod.message?.errorResponse).to.equal(undefined);
    expect(app.registry.get(uid as InstanceUid)?.description?.identifying).to.deep.equal({ env: 'prod' });
  });
});
