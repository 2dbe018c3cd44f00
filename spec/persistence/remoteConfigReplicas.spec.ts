// Remote configs across three replicas (real processes) on one database: a config written through
// one replica is in force on every replica, an agent gets the same desired hash wherever it
// connects, and a change reaches a WebSocket agent held by a sibling at once (NOTIFY), not at its
// next heartbeat.

import { expect } from 'chai';
import { agentMessage, description, newUid, WsAgent, type ServerToAgent } from '../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { eventually } from './eventually.ts';
import { startReplica, type Replica } from './replica.ts';
import { apiToken } from '../support/apiTokens.ts';

const token = 'replica-spec-admin';
const auth = {
  api_tokens: [apiToken('spec', token, 'admin')],
};
const capabilities = 0x1 | 0x2 | 0x1000; // ReportsStatus | AcceptsRemoteConfig | ReportsRemoteConfig
const hexOf = (m: ServerToAgent) => Buffer.from(m.remoteConfig?.configHash ?? []).toString('hex');

async function api(replica: Replica, method: string, path: string, body?: unknown) {
  const res = await fetch(`${replica.ui}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const desiredHashOn = async (replica: Replica, uid: string) => {
  const r = await api(replica, 'GET', `/api/agents/${uid}`);
  return r.status === 200
    ? (r.json.remote_config as { desired_hash: string | null }).desired_hash
    : undefined;
};

describe('remote configs across three replicas on one database', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let replicas: Replica[] = [];

  before(async () => {
    db = await createTestDatabase();
    replicas = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        startReplica(name, { database: db.config, auth, fleet: { heartbeat_interval: '1h' } }),
      ),
    );
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await db.drop();
  });

  it('gives an agent the same desired hash wherever it connects, and pushes a change from a sibling', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    const created = await api(a, 'POST', '/api/configs', {
      name: 'edge',
      selector: 'service.name=edge',
      body: 'receivers: {otlp: {}}\n',
    });
    expect(created.status).to.equal(201);

    const uid = newUid();
    const full = (seq: number, hash: string, status: number) =>
      agentMessage(uid, {
        sequenceNum: seq,
        capabilities,
        agentDescription: description({ 'service.name': 'edge' }),
        remoteConfigStatus: { lastRemoteConfigHash: Buffer.from(hash, 'hex'), status },
      });
    // First on B: it serves the config written on A.
    const onB = await WsAgent.open(b.opamp);
    const fromB = await eventually(async () => {
      const reply = await onB.send(full(0, '', 0));
      return hexOf(reply) || undefined;
    }, 'B to serve the config written on A');
    await onB.close();

    // Then on C, reporting what it applied: C wants the same hash, so it sends nothing.
    const onC = await WsAgent.open(c.opamp);
    const fromC = await onC.send(full(1, fromB, 1));
    expect(fromC.remoteConfig).to.equal(undefined);
    for (const replica of [a, b, c])
      expect(
        await eventually(() => desiredHashOn(replica, uid), `${replica.name} to know the agent`),
      ).to.equal(fromB);

    // A change written on A reaches the agent on C without a message from the agent.
    const changed = await api(a, 'PUT', '/api/configs/edge', {
      revision: 1,
      body: 'receivers: {otlp: {}, prometheus: {}}\n',
    });
    expect(changed.status).to.equal(200);
    const pushed = await onC.next();
    expect(hexOf(pushed)).to.have.length(64).and.not.equal(fromB);
    expect(await desiredHashOn(c, uid)).to.equal(hexOf(pushed));
    await onC.close();
  });
});
