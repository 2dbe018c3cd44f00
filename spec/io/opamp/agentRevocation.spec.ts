// Revoking an agent reaches its live connection, and bindings outlive the process (issue 22;
// docs/security.md "Revocation"): the revoked agent's WebSocket is closed, its next connection
// refused (a message answered BadRequest over WebSocket, 401 over plain HTTP); a gateway loses only
// the revoked agent. With PostgreSQL, an id bound before a restart is refused to another credential
// after it, an impostor's poll leaves a waiting restart command to the rightful agent, a revocation
// on one replica closes the connection held by another, and a store that fails refuses rather than
// guesses.

import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { agentMessage, description, newUid, postHttp, WsAgent } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { nextEvent } from '../../support/busWaiter.ts';
import { refusedDuring } from '../../support/opampRefusals.ts';
import { eventually } from '../../persistence/eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';

const BadRequest = 1;
const Unavailable = 2;
const ReportsStatus = 0x1;
const AcceptsRestartCommand = 0x400;

const adminToken = 'revoke-admin-token';
const tokenA = 'enroll-a-c0ffee';
const tokenB = 'enroll-b-decade';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const config = {
  auth: { api_tokens: [apiToken('ops', adminToken, 'admin')] },
  agents: {
    tokens: [
      { name: 'fleet-a', sha256: sha256(tokenA), gateway: true },
      { name: 'fleet-b', sha256: sha256(tokenB) },
    ],
  },
};

const described = (uid: string, sequenceNum = 0) =>
  agentMessage(uid, { sequenceNum, agentDescription: description({ 'service.name': 'r' }) });

async function revoke(app: App, uid: string): Promise<number> {
  const res = await fetch(`${app.urls.ui}/api/agents/${uid}/revoke`, {
    method: 'POST',
    headers: bearer(adminToken),
  });
  await res.arrayBuffer();
  return res.status;
}

/** The close code of `agent`'s socket, once the server closed it. */
const closed = (agent: WsAgent): Promise<number> =>
  new Promise((resolve) => {
    if (agent.closeCode !== undefined) return resolve(agent.closeCode);
    agent.socket.once('close', (code: number) => resolve(code));
  });

/** What a revoked id gets on a new connection: BadRequest over WebSocket, 401 over plain HTTP. */
async function expectRefusedAsRevoked(app: App, uid: string, token: string): Promise<void> {
  const refused = await refusedDuring(app, 'revoked', async () => {
    const again = await WsAgent.open(app.urls.opamp, { headers: bearer(token) });
    const reply = await again.send(described(uid, 1));
    expect(reply.errorResponse?.type).to.equal(BadRequest);
    expect(reply.errorResponse?.errorMessage).to.match(/revoked/);
    await again.close();
    const http = await postHttp(app.urls.opamp, described(uid, 2), bearer(token));
    expect([http.status, http.headers.get('www-authenticate')]).to.deep.equal([401, 'Bearer']);
  });
  expect(refused).to.equal(2);
}

describe('revoking an agent (persistence off)', () => {
  let app: App;
  before(async () => {
    app = await startApp({ config });
  });
  after(() => app.stop());

  it('closes its live WebSocket with 1008 and refuses its next connection', async () => {
    const uid = newUid();
    const agent = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
    expect((await agent.send(described(uid))).errorResponse).to.equal(undefined);
    const gone = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === uid);
    expect(await revoke(app, uid)).to.equal(200);
    expect(await closed(agent)).to.equal(1008);
    await gone;
    expect(app.registry.get(uid as InstanceUid)?.connected).to.equal(false);
    await expectRefusedAsRevoked(app, uid, tokenA);
  });

  it("releases only the revoked agent of a gateway; the gateway's other agents are served", async () => {
    const gateway = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
    await gateway.send(
      encodeAgentToServer({
        instanceUid: new Uint8Array(),
        customMessage: {
          capability: 'com.vendor.opamp-gateway',
          type: 'connect',
          data: new TextEncoder().encode('{"request_uid":"g"}'),
        },
      }),
    );
    const [kept, revoked] = [newUid(), newUid()];
    await gateway.send(described(kept));
    await gateway.send(described(revoked));
    const gone = nextEvent(app.bus, 'AgentDisconnected', (e) => e.data.uid === revoked);
    expect(await revoke(app, revoked)).to.equal(200);
    await gone;
    expect((await gateway.send(described(kept, 1))).errorResponse).to.equal(undefined);
    const refused = await gateway.send(described(revoked, 1));
    expect(refused.errorResponse?.errorMessage).to.match(/revoked/);
    expect(app.registry.get(kept as InstanceUid)?.connected).to.equal(true);
    await gateway.close();
  });
});

describe('bindings and revocations in PostgreSQL', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('refuses an impostor of an id bound before a restart, and admits the rightful agent', async () => {
    const uid = newUid();
    const first = await startApp({ config: { ...config, database: db.config } });
    expect(
      (await postHttp(first.urls.opamp, described(uid), bearer(tokenA))).message?.errorResponse,
    ).to.equal(undefined);
    await first.stop();
    const app = await startApp({ config: { ...config, database: db.config } });
    try {
      const refused = await refusedDuring(app, 'uid_bound_elsewhere', async () => {
        const impostor = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenB) });
        expect((await impostor.send(described(uid, 1))).errorResponse?.type).to.equal(BadRequest);
        await impostor.close();
        const http = await postHttp(app.urls.opamp, described(uid, 1), bearer(tokenB));
        expect(http.message?.errorResponse?.type).to.equal(BadRequest);
      });
      expect(refused).to.equal(2);
      expect(app.registry.get(uid as InstanceUid), 'nothing folded for the impostor').to.equal(undefined);
      const rightful = await postHttp(app.urls.opamp, described(uid, 1), bearer(tokenA));
      expect(rightful.message?.errorResponse).to.equal(undefined);
      expect(app.registry.get(uid as InstanceUid)?.description).to.not.equal(null);
    } finally {
      await app.stop();
    }
  });

  it("leaves a restart command waiting for a plain-HTTP agent to that agent: an impostor's poll takes nothing", async () => {
    const app = await startApp({ config: { ...config, database: db.config } });
    const uid = newUid();
    const poll = (token: string, sequenceNum: number) =>
      postHttp(
        app.urls.opamp,
        agentMessage(uid, {
          sequenceNum,
          capabilities: ReportsStatus | AcceptsRestartCommand,
          agentDescription: description({ 'service.name': 'restart-victim' }),
        }),
        bearer(token),
      );
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${app.urls.ui}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'Content-Type': 'application/json', ...bearer(adminToken) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return (await res.json()) as { id: string; targets: { sent_at: string | null }[] };
    };
    try {
      expect((await poll(tokenA, 0)).message?.errorResponse).to.equal(undefined);
      const { id } = await api('/api/jobs', {
        filter: 'service.name=restart-victim',
        action: 'restart',
        action_config: { reconnect_timeout: '1m', backoff_cap: '1s' },
        submitted_by: 'spec',
      });
      await api(`/api/jobs/${id}/arm`, {});
      // Claimed for the agent (sent_at) and waiting in its queue for its next poll.
      await eventually(async () => (await api(`/api/jobs/${id}`)).targets[0]?.sent_at != null, 'the claim');
      const refused = await refusedDuring(app, 'uid_bound_elsewhere', async () => {
        const http = await poll(tokenB, 1);
        expect(http.message?.errorResponse?.type).to.equal(BadRequest);
        expect(http.message?.command, 'no command for the impostor').to.equal(undefined);
        const ws = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenB) });
        const reply = await ws.send(described(uid, 1));
        await ws.close();
        expect(reply.command).to.equal(undefined);
      });
      expect(refused).to.equal(2);
      const rightful = await poll(tokenA, 1);
      // Restart is command type 0: present and empty on the wire.
      expect(rightful.message?.command, 'the command, still queued for the rightful agent').to.deep.equal({});
    } finally {
      await app.stop();
    }
  });

  it('closes a connection held by one replica when another revokes, and both refuse the id then', async () => {
    const a = await startApp({ config: { ...config, database: db.config } });
    const b = await startApp({ config: { ...config, database: db.config } });
    try {
      const uid = newUid();
      const agent = await WsAgent.open(b.urls.opamp, { headers: bearer(tokenA) });
      await agent.send(described(uid));
      expect(await revoke(a, uid)).to.equal(200);
      expect(await closed(agent)).to.equal(1008);
      await expectRefusedAsRevoked(b, uid, tokenA);
      await expectRefusedAsRevoked(a, uid, tokenA);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('refuses with Unavailable (503 over HTTP) while the store cannot answer, and admits once it can', async () => {
    const app = await startApp({ config: { ...config, database: db.config } });
    const sql = await db.client();
    const uid = newUid();
    try {
      await sql.query('ALTER TABLE agent_credentials RENAME TO agent_credentials_away');
      const refused = await refusedDuring(app, 'credential_store_unavailable', async () => {
        const ws = await WsAgent.open(app.urls.opamp, { headers: bearer(tokenA) });
        const reply = await ws.send(described(uid));
        expect(reply.errorResponse?.type).to.equal(Unavailable);
        await ws.close();
        const http = await postHttp(app.urls.opamp, described(uid), bearer(tokenA));
        expect([http.status, http.headers.get('retry-after')]).to.deep.equal([503, '30']);
      });
      expect(refused).to.equal(2);
      expect(app.registry.get(uid as InstanceUid)).to.equal(undefined);
      await sql.query('ALTER TABLE agent_credentials_away RENAME TO agent_credentials');
      expect((await postHttp(app.urls.opamp, described(uid), bearer(tokenA))).status).to.equal(200);
    } finally {
      await sql.query('ALTER TABLE IF EXISTS agent_credentials_away RENAME TO agent_credentials');
      await sql.end();
      await app.stop();
    }
  });
});
