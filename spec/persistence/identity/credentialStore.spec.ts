// The credential store's contract, run against both implementations: in memory and on a real
// PostgreSQL. Then what only PostgreSQL can show: two replicas racing for one id agree on its holder.

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

let n = 0;
const freshUid = () => `018f0000-0000-7000-8000-${String(++n).padStart(12, '0')}` as InstanceUid;
const token = (name: string): AgentCredential => ({ kind: 'token', name });
const issued = (uid: InstanceUid, serial: string): AgentCredential => ({
  kind: 'agent_certificate',
  name: `spiffe://example.org/agent/${uid}`,
  serial,
});

function contract(name: string, makeStore: () => CredentialStore) {
  describe(`credential store (${name})`, () => {
    let store: CredentialStore;
    before(() => (store = makeStore()));

    it('binds an id to the first credential and refuses another one, naming the holder', async () => {
      const uid = freshUid();
      expect(await store.bind(uid, token('prod'), 1000)).to.deep.include({ outcome: 'bound' });
      const again = await store.bind(uid, token('prod'), 2000);
      expect(again.outcome === 'bound' && again.binding.boundAt).to.equal(1000);
      expect(await store.bind(uid, token('staging'), 3000)).to.deep.equal({
        outcome: 'bound_elsewhere',
        holder: token('prod'),
      });
      const cert: AgentCredential = { kind: 'certificate', name: 'CN=mallory', serial: '0a' };
      expect((await store.bind(uid, cert, 4000)).outcome).to.equal('bound_elsewhere');
    });

    it('hands an id to a certificate issued for it, after which the token no longer reaches it', async () => {
      const uid = freshUid();
      await store.bind(uid, token('prod'), 1000);
      await store.recordIssued({
        serial: 'aa01',
        uid,
        notBefore: 900,
        notAfter: 9000,
        issuedAt: 1000,
        issuedBy: 'token:prod',
        issuedTo: token('prod'),
      });
      const moved = await store.bind(uid, issued(uid, 'aa01'), 2000);
      expect(moved.outcome === 'bound' && moved.binding).to.deep.include({
        credential: issued(uid, 'aa01'),
        boundAt: 2000,
      });
      expect((await store.bind(uid, token('prod'), 3000)).outcome).to.equal('bound_elsewhere');
      // A renewed certificate (new serial) is the same holder.
      await store.recordIssued({
        serial: 'aa02',
        uid,
        notBefore: 3900,
        notAfter: 19000,
        issuedAt: 4000,
        issuedBy: `agent_certificate:${issued(uid, 'aa01').name} serial aa01`,
        issuedTo: issued(uid, 'aa01'),
      });
      const renewed = await store.bind(uid, issued(uid, 'aa02'), 4000);
      expect(renewed.outcome === 'bound' && renewed.binding).to.deep.include({
        credential: issued(uid, 'aa02'),
        boundAt: 2000,
      });
    });

    it('refuses a certificate for an id it does not name, one it has no record of, and one issued to another holder', async () => {
      const [mine, theirs] = [freshUid(), freshUid()];
      await store.bind(mine, token('dev'), 1000);
      await store.bind(theirs, token('prod'), 1000);
      await store.recordIssued({
        serial: 'ab01',
        uid: mine,
        notBefore: 900,
        notAfter: 9000,
        issuedAt: 1000,
        issuedBy: 'token:dev',
        issuedTo: token('dev'),
      });
      const fresh = freshUid();
      for (const uid of [theirs, fresh])
        expect(await store.bind(uid, issued(mine, 'ab01'), 2000)).to.deep.equal({
          outcome: 'not_named',
          named: issued(mine, 'ab01').name,
        });
      expect(await store.binding(fresh), 'a fresh id is not taken').to.equal(undefined);
      expect(await store.bind(theirs, issued(theirs, 'ee01'), 2000)).to.deep.equal({ outcome: 'unrecorded' });
      // A certificate of `theirs` issued to another token than its holder does not move it.
      await store.recordIssued({
        serial: 'dd01',
        uid: theirs,
        notBefore: 900,
        notAfter: 9000,
        issuedAt: 1000,
        issuedBy: 'token:dev',
        issuedTo: token('dev'),
        bounds: { selector: 'env=dev', gateway: false },
      });
      expect((await store.bind(theirs, issued(theirs, 'dd01'), 2000)).outcome).to.equal('bound_elsewhere');
      const [record] = await store.certificates(theirs);
      expect(record).to.deep.include({
        issuedTo: token('dev'),
        bounds: { selector: 'env=dev', gateway: false },
      });
    });

    it('records issued certificates with the credential that asked', async () => {
      const uid = freshUid();
      await store.recordIssued({
        serial: 'bb01',
        uid,
        notBefore: 1,
        notAfter: 10,
        issuedAt: 5,
        issuedBy: 'token:prod',
      });
      await store.recordIssued({
        serial: 'bb02',
        uid,
        notBefore: 1,
        notAfter: 20,
        issuedAt: 6,
        issuedBy: 'agent_certificate:x',
      });
      expect(
        (await store.certificates(uid)).map((c) => [c.serial, c.issuedBy, c.notAfter, c.revokedAt]),
      ).to.deep.equal([
        ['bb02', 'agent_certificate:x', 20, null],
        ['bb01', 'token:prod', 10, null],
      ]);
    });

    it('revokes an id with its certificates: every credential is refused, the first revocation kept', async () => {
      const uid = freshUid();
      await store.bind(uid, token('prod'), 1000);
      await store.recordIssued({
        serial: 'cc01',
        uid,
        notBefore: 1,
        notAfter: 99_999,
        issuedAt: 5,
        issuedBy: 'token:prod',
      });
      expect(await store.revoke(uid, 'admin-token', 7000)).to.deep.equal({
        changed: true,
        revokedAt: 7000,
        revokedBy: 'admin-token',
        certificates: 1,
      });
      expect(await store.bind(uid, token('prod'), 8000)).to.deep.equal({
        outcome: 'revoked',
        revokedAt: 7000,
      });
      expect(await store.bind(uid, issued(uid, 'cc01'), 8000)).to.deep.equal({
        outcome: 'revoked',
        revokedAt: 7000,
      });
      expect((await store.certificates(uid))[0]?.revokedAt).to.equal(7000);
      expect(await store.revoke(uid, 'someone-else', 9000)).to.deep.equal({
        changed: false,
        revokedAt: 7000,
        revokedBy: 'admin-token',
        certificates: 0,
      });
    });

    it('revokes an id no credential holds yet, so that none can take it', async () => {
      const uid = freshUid();
      expect((await store.revoke(uid, 'admin', 500)).changed).to.equal(true);
      expect(await store.binding(uid)).to.deep.include({
        credential: null,
        revokedAt: 500,
        revokedBy: 'admin',
      });
      expect((await store.bind(uid, token('prod'), 600)).outcome).to.equal('revoked');
    });
  });
}

contract('memory', createMemoryCredentialStore);

describe('credential store on PostgreSQL', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  const pools: pg.Pool[] = [];
  let replicas: CredentialStore[] = [];

  before(async () => {
    db = await createTestDatabase();
    const settings = connectionSettings({ ...db.config, pool_max: 4 });
    await applyServiceMigrations(settings);
    for (const replica of ['a', 'b']) {
      const pool = new pg.Pool({ ...settings, max: 8 });
      pool.on('error', () => undefined);
      pools.push(pool);
      replicas.push(createPgCredentialStore(pool, { replica }));
    }
  });
  after(async () => {
    for (const pool of pools) await pool.end();
    replicas = [];
    await db.drop();
  });

  contract('PostgreSQL', () => replicas[0]!);

  it('lets two replicas racing with 40 credentials for one id agree on a single holder', async () => {
    for (let round = 0; round < 5; round++) {
      const uid = freshUid();
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => replicas[i % 2]!.bind(uid, token(`t${i}`), 1000 + i)),
      );
      const winners = outcomes.filter((o) => o.outcome === 'bound');
      expect(winners).to.have.length(1);
      const holder = winners[0]!.outcome === 'bound' ? winners[0]!.binding.credential : null;
      for (const o of outcomes)
        if (o.outcome !== 'bound') expect(o).to.deep.equal({ outcome: 'bound_elsewhere', holder });
      expect((await replicas[1]!.binding(uid))?.credential).to.deep.equal(holder);
    }
  });

  it('revokes once when two replicas revoke at the same time', async () => {
    const uid = freshUid();
    await replicas[0]!.bind(uid, token('prod'), 1);
    const [a, b] = await Promise.all([
      replicas[0]!.revoke(uid, 'alice', 10),
      replicas[1]!.revoke(uid, 'bob', 11),
    ]);
    expect([a.changed, b.changed].sort()).to.deep.equal([false, true]);
    expect(a.revokedAt).to.equal(b.revokedAt);
  });
});
