// Jobs across replicas, as real processes on one database: a rollout over agents spread across three
// replicas completes, and when the replica that armed a rollout is killed (SIGKILL) mid-way, the
// others finish it.

import { expect } from 'chai';
import { createFleet, type Fleet } from '../../../tools/simulate/fleet.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { eventually } from '../eventually.ts';
import { startReplica, type Replica } from '../replica.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

const token = 'replica-jobs-admin';
const auth = {
  api_tokens: [apiToken('operator', token, 'admin')],
};
const fleetOptions = steadyFleet({ heartbeatMs: 2000 });

type Json = Record<string, unknown>;

async function api(replica: Replica, method: string, path: string, body?: unknown) {
  const res = await fetch(`${replica.ui}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

describe('jobs across replicas (real processes)', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let replicas: Replica[] = [];
  let fleets: Fleet[] = [];

  beforeEach(async () => {
    db = await createTestDatabase();
    replicas = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        startReplica(name, { database: db.config, auth, fleet: { heartbeat_interval: '10s' } }),
      ),
    );
  });
  afterEach(async () => {
    await Promise.all(fleets.map((f) => f.stop()));
    fleets = [];
    await Promise.all(replicas.map((r) => r.stop()));
    await db.drop();
  });

  /** Fleets of 6 agents on each of `on`; resolves when every agent applied the config. */
  async function agentsOn(on: Replica[]): Promise<Fleet[]> {
    fleets = on.map((r) => createFleet({ ...fleetOptions, url: r.opamp }));
    await Promise.all(fleets.map((f) => f.start()));
    return fleets;
  }
  const applied = (hash?: string) =>
    fleets.every((f) => {
      const c = f.snapshot().configs;
      return c.applied === 6 && (hash === undefined || c.byHash[hash] === 6);
    });

  async function rollout(via: Replica, wait: string): Promise<string> {
    expect(
      (
        await api(via, 'POST', '/api/configs', {
          name: 'fleet',
          selector: 'service.version=~".+"',
          body: 'a: 1\n',
        })
      ).status,
    ).to.equal(201);
    await eventually(() => Promise.resolve(applied()), 'revision 1 applied everywhere');
    // Targets are resolved from the fleet as the arming replica sees it: its siblings' agents appear
    // there once flushed (SPEC durability rule 6).
    const total = fleets.length * 6;
    await eventually(
      async () => (await api(via, 'GET', '/api/agents?limit=1')).json.total === total,
      `${via.name} to list every agent`,
    );
    await api(via, 'PUT', '/api/configs/fleet', { revision: 1, body: 'a: 2\n', draft: true });
    const created = await api(via, 'POST', '/api/jobs', {
      filter: 'connected=true',
      action: 'config_rollout',
      submitted_by: 'spec',
      action_config: { config: 'fleet', revision: 2, stages: [1, '25%', '50%', '100%'], wait },
    });
    const id = created.json.id as string;
    const armed = await api(via, 'POST', `/api/jobs/${id}/arm`);
    expect(armed.status, JSON.stringify(armed.json)).to.equal(200);
    return id;
  }
  const statusOn = async (replica: Replica, id: string) =>
    (await api(replica, 'GET', `/api/jobs/${id}`)).json;

  it('completes a rollout over agents spread across three replicas', async () => {
    const [a, b] = replicas as [Replica, Replica, Replica];
    await agentsOn(replicas);
    const id = await rollout(a, '0s');
    const done = await eventually(async () => {
      const job = await statusOn(b, id);
      return job.status === 'succeeded' && job;
    }, 'the rollout to succeed');
    expect(done.target_counts).to.include({ succeeded: 18 });
    await eventually(
      () =>
        Promise.resolve(
          fleets.every(
            (f) =>
              Object.keys(f.snapshot().configs.byHash).length === 1 && f.snapshot().configs.applied === 6,
          ),
        ),
      'every agent on revision 2',
    );
    const hashes = new Set(fleets.flatMap((f) => Object.keys(f.snapshot().configs.byHash)));
    expect(hashes.size).to.equal(1);
    expect((await api(b, 'GET', '/api/configs/fleet')).json).to.include({ current_revision: 2 });
  });

  it('finishes a rollout on the other replicas when the replica that armed it is killed mid-way', async () => {
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    await agentsOn([b, c]);
    const id = await rollout(a, '2s');
    await eventually(async () => ((await statusOn(b, id)).stage as number) >= 2, 'the second stage');
    await a.kill();
    const done = await eventually(
      async () => {
        const job = await statusOn(c, id);
        return (job.status === 'succeeded' || job.status === 'failed') && job;
      },
      'another replica to finish the rollout',
      { timeoutMs: 90_000 },
    );
    expect(done).to.include({ status: 'succeeded', stage: 4 });
    expect(done.target_counts).to.include({ succeeded: 12 });
  });
});
