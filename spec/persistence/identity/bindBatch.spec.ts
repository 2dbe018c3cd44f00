// Binding many ids at once on PostgreSQL (pgBindBatch.ts): binds asked together go to the database a
// batch at a time, and each id's outcome is the one the in-memory store gives for the same asks in
// the same order: new ids taken, an id held by another credential refused with its holder, the
// holder again keeping its first bound time, a revoked id refused, a token's id moving to the
// certificate issued for it, and one id asked by two credentials in one go held by the first.

import { expect } from 'chai';
import pg from 'pg';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { connectionSettings } from '../../../src/persistence/database/connectionSettings.ts';
import { applyServiceMigrations } from '../../../src/persistence/database/migrate.ts';
import { createPgCredentialStore } from '../../../src/persistence/identity/pgCredentialStore.ts';
import type { AgentCredential } from '../../../src/projections/identity/agentCredential.ts';
import type { CredentialStore } from '../../../src/projections/identity/credentialStore.ts';
import { createMemoryCredentialStore } from '../../../src/projections/identity/memoryCredentialStore.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';

const uidOf = (i: number) => `018f0000-0000-7000-8000-${String(i).padStart(12, '0')}` as InstanceUid;
const token = (name: string): AgentCredential => ({ kind: 'token', name });
const issued = (uid: InstanceUid, serial: string): AgentCredential => ({
  kind: 'agent_certificate',
  name: `spiffe://example.org/agent/${uid}`,
  serial,
});

/** What both stores hold before the asks: ids 0-99 held by `prod`, 100-199 by `dev`, 200-219 revoked, 220-229 issued. */
async function prepare(store: CredentialStore): Promise<void> {
  for (let i = 0; i < 100; i++) await store.bind(uidOf(i), token('prod'), 1000);
  for (let i = 100; i < 200; i++) await store.bind(uidOf(i), token('dev'), 1000);
  for (let i = 200; i < 220; i++) await store.revoke(uidOf(i), 'ops', 1500);
  for (let i = 220; i < 230; i++) {
    await store.bind(uidOf(i), token('prod'), 1000);
    await store.recordIssued({
      serial: `c${i}`,
      uid: uidOf(i),
      notBefore: 900,
      notAfter: 90_000,
      issuedAt: 1000,
      issuedBy: 'token:prod',
      issuedTo: token('prod'),
    });
  }
}

/** 1,500 asks made in one turn: 1,200 new ids among them, and one new id asked by two tokens. */
const asks: readonly (readonly [InstanceUid, AgentCredential])[] = [
  ...Array.from({ length: 230 }, (_, i) => [uidOf(i), token('prod')] as const),
  ...Array.from({ length: 10 }, (_, i) => [uidOf(220 + i), issued(uidOf(220 + i), `c${220 + i}`)] as const),
  ...Array.from({ length: 1200 }, (_, i) => [uidOf(1000 + i), token(i % 2 === 0 ? 'prod' : 'edge')] as const),
  [uidOf(5000), token('first')],
  [uidOf(5000), token('second')],
  ...Array.from({ length: 58 }, (_, i) => [uidOf(100 + i), token('prod')] as const),
];

const askAll = (store: CredentialStore) =>
  Promise.all(asks.map(([uid, credential], i) => store.bind(uid, credential, 2000 + i)));

describe('binding many ids at once on PostgreSQL', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let pool: pg.Pool;

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 4 });
    await applyServiceMigrations(settings);
    pool = new pg.Pool({ ...settings, max: 4 });
    pool.on('error', () => undefined);
  });
  after(async () => {
    await pool.end();
    await db.drop();
  });

  it('answers every id as the in-memory store does, in a few statements', async () => {
    const batches: number[] = [];
    const store = createPgCredentialStore(pool, { replica: 'a', onBindBatch: (n) => batches.push(n) });
    const memory = createMemoryCredentialStore();
    await prepare(store);
    await prepare(memory);
    batches.length = 0;

    const [onPg, inMemory] = [await askAll(store), await askAll(memory)];

    expect(onPg).to.deep.equal(inMemory);
    const outcomes = onPg.map((o) => o.outcome);
    expect(outcomes.filter((o) => o === 'bound')).to.have.length(100 + 10 + 10 + 1200 + 1);
    expect(outcomes.filter((o) => o === 'bound_elsewhere')).to.have.length(100 + 1 + 58);
    expect(outcomes.filter((o) => o === 'revoked')).to.have.length(20);
    expect(inMemory[asks.length - 59], 'the second token asking a new id').to.deep.equal({
      outcome: 'bound_elsewhere',
      holder: token('first'),
    });
    // 1,500 asks of 1,441 distinct ids: a batch holds 1,000 distinct ids, and an id asked again while
    // its batch is in flight waits for that batch to end.
    expect(
      batches.reduce((a, b) => a + b, 0),
      'every ask sent once',
    ).to.equal(asks.length);
    expect(batches.length, `batches ${batches.join(', ')}`).to.be.at.most(3);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM agent_credentials');
    expect(Number(rows[0]!.n)).to.equal(230 + 1200 + 1);
  });
});
