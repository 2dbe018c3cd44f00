// POST /api/agents/{id}/revoke against the running service: who may revoke, unknown ids, what is
// recorded and announced; with persistence off (the in-memory store), and across two replicas on one
// real PostgreSQL, where a revocation on one reaches the bus of the other, which closes the agent's
// live connection.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { FleetEvent } from '../../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { errorOf, request } from './apiClient.ts';

const adminToken = 'admin-secret-token';
const viewerToken = 'viewer-secret-token';
const tokens = [apiToken('ops', adminToken, 'admin'), apiToken('dashboard', viewerToken, 'viewer')];

const revoke = (app: App, id: string, token: string | null = adminToken) =>
  request(`${app.urls.ui}/api/agents/${id}/revoke`, {
    method: 'POST',
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });

/** Every AgentCredentialRevoked the app's bus carries from now on. */
function revocations(app: App): FleetEvent[] {
  const seen: FleetEvent[] = [];
  app.bus.events$.subscribe((e) => {
    if (e.type === 'AgentCredentialRevoked') seen.push(e);
  });
  return seen;
}

describe('POST /api/agents/{id}/revoke (persistence off)', () => {
  let app: App;
  let seen: FleetEvent[];
  const uid = newUid();

  before(async () => {
    app = await startApp({ config: { auth: { api_tokens: tokens } } });
    seen = revocations(app);
    const reply = await postHttp(
      app.urls.opamp,
      agentMessage(uid, { agentDescription: description({ 'service.name': 'a' }) }),
    );
    expect(reply.status).to.equal(200);
  });
  after(() => app.stop());

  it('refuses anonymous callers and viewers, and records nothing', async () => {
    expect((await revoke(app, uid, null)).status).to.equal(403);
    expect((await revoke(app, uid, viewerToken)).status).to.equal(403);
    expect(await app.credentials.binding(uid as InstanceUid)).to.equal(undefined);
    expect(seen).to.deep.equal([]);
  });

  it('answers 404 for an id neither the fleet nor the credential store knows', async () => {
    const unknown = await revoke(app, newUid());
    expect(unknown.status).to.equal(404);
    expect(errorOf(unknown)).to.match(/not found/);
    expect((await revoke(app, 'not-an-id')).status).to.equal(404);
  });

  it('revokes the binding and certificates, announces it with the actor, and keeps the first revocation', async () => {
    const id = uid as InstanceUid;
    await app.credentials.bind(id, { kind: 'token', name: 'enroll' }, 1);
    await app.credentials.recordIssued({
      serial: 'ab',
      uid: id,
      notBefore: 0,
      notAfter: 9e12,
      issuedAt: 1,
      issuedBy: 'token:enroll',
    });
    const res = await revoke(app, uid);
    expect(res.status).to.equal(200);
    expect(res.json).to.deep.include({
      instance_uid: uid,
      revoked_by: 'ops',
      certificates_revoked: 1,
      already_revoked: false,
    });
    expect(seen).to.have.length(1);
    expect(seen[0]).to.deep.include({ type: 'AgentCredentialRevoked', data: { uid, revokedBy: 'ops' } });
    expect((await app.credentials.bind(id, { kind: 'token', name: 'enroll' }, 2)).outcome).to.equal(
      'revoked',
    );
    const again = await revoke(app, uid);
    expect(again.json).to.deep.include({ revoked_by: 'ops', certificates_revoked: 0, already_revoked: true });
  });

  it('revokes an id known only to the credential store', async () => {
    const id = newUid() as InstanceUid;
    await app.credentials.bind(id, { kind: 'token', name: 'enroll' }, 1);
    expect((await revoke(app, id)).status).to.equal(200);
  });
});

describe('POST /api/agents/{id}/revoke across two replicas (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let a: App;
  let b: App;

  before(async () => {
    db = await createTestDatabase();
    const config = { database: db.config, auth: { api_tokens: tokens } };
    a = await startApp({ config });
    b = await startApp({ config });
  });
  after(async () => {
    await a.stop();
    await b.stop();
    await db.drop();
  });

  it("reaches the bus of the replica that holds the agent's connection, once on each, and that replica closes it", async () => {
    const uid = newUid();
    const agent = await WsAgent.open(b.urls.opamp);
    await agent.send(agentMessage(uid, { agentDescription: description({ 'service.name': 'b' }) }));
    await b.credentials.bind(uid as InstanceUid, { kind: 'token', name: 'enroll' }, 1);
    const closed = new Promise<number>((resolve) => agent.socket.once('close', resolve));
    const onA = revocations(a);
    const heardOnB = nextEvent(b.bus, 'AgentCredentialRevoked', (e) => e.data.uid === uid);
    const res = await revoke(a, uid);
    expect(res.status).to.equal(200);
    expect((await heardOnB).data).to.deep.equal({ uid, revokedBy: 'ops' });
    // The revoking replica announced it itself and ignores its own notice.
    expect(onA.map((e) => e.type)).to.deep.equal(['AgentCredentialRevoked']);
    expect((await b.credentials.binding(uid as InstanceUid))?.revokedBy).to.equal('ops');
    expect(await closed, 'closed by replica B, policy violation').to.equal(1008);
  });

  it('answers 503 and announces nothing when the store cannot record the revocation', async () => {
    const uid = newUid() as InstanceUid;
    await a.credentials.bind(uid, { kind: 'token', name: 'enroll' }, 1);
    const seen = revocations(a);
    const sql = await db.client();
    try {
      await sql.query('ALTER TABLE agent_certificates RENAME TO agent_certificates_away');
      const res = await revoke(a, uid);
      expect(res.status).to.equal(503);
      expect(errorOf(res)).to.equal('credential store unavailable: the revocation was not recorded');
      expect(seen).to.deep.equal([]);
      expect((await a.credentials.binding(uid))?.revokedAt).to.equal(null);
    } finally {
      await sql.query('ALTER TABLE agent_certificates_away RENAME TO agent_certificates');
      await sql.end();
    }
  });
});
