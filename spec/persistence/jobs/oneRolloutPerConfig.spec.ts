// One rollout per config, held by PostgreSQL (migration 00010): two arms of rollouts of one config
// racing on two connections cannot both win, whatever the web layer checked before; the loser is
// answered 409 naming the winner. A finished or cancelled rollout frees its config.

import { expect } from 'chai';
import type { ArmRequest, JobControl, JobStore } from '../../../src/projections/jobs/jobStore.ts';
import { openJobStore, targetUid as uid, type JobStoreFixture } from './jobStoreFixture.ts';

describe('one rollout per config (PostgreSQL)', function () {
  this.timeout(30_000);
  let fixture: JobStoreFixture;
  let store: JobStore & JobControl;

  before(async () => {
    fixture = await openJobStore(4);
    ({ store } = fixture);
  });
  after(() => fixture.close());

  const rollout = async (config: string) =>
    (
      await store.create({
        filter: '',
        action: 'config_rollout',
        action_config: { config, revision: 2 },
        submitted_by: 'spec',
      })
    ).id;
  const request = (n: number): ArmRequest => ({
    actor: 'spec',
    targetMode: 'snapshot',
    dispatchAt: Date.now() + 60_000,
    targets: [{ uid: uid(n), eligible: true, reason: '' }],
    fromRevision: 1,
  });

  it('lets one of two concurrent arms of one config win and answers the other 409', async () => {
    const [a, b] = [await rollout('web'), await rollout('web')];
    const outcomes = await Promise.all([store.arm(a, request(1)), store.arm(b, request(2))]);
    const won = outcomes.filter((o) => o.ok);
    const lost = outcomes.filter((o) => !o.ok);
    expect(won).to.have.length(1);
    expect(lost).to.have.length(1);
    const winner = won[0]!.ok ? won[0]!.job : undefined;
    expect(lost[0]).to.deep.include({ ok: false, status: 409 });
    expect(!lost[0]!.ok && lost[0]!.error).to.equal(`job ${winner!.id} is already rolling out web`);
    // The loser stays planned, with no targets and no event: its transaction left nothing.
    const loser = winner!.id === a ? b : a;
    expect((await store.get(loser))?.status).to.equal('planned');
    expect(await store.targets(loser, { limit: 10, offset: 0 })).to.deep.equal([]);
    expect(await store.events(loser)).to.deep.equal([]);
  });

  it('arms rollouts of different configs side by side', async () => {
    const [a, b] = [await rollout('api'), await rollout('db')];
    const outcomes = await Promise.all([store.arm(a, request(3)), store.arm(b, request(4))]);
    expect(outcomes.map((o) => o.ok)).to.deep.equal([true, true]);
  });

  it('frees the config once its rollout is cancelled', async () => {
    const first = await rollout('cache');
    expect((await store.arm(first, request(5))).ok).to.equal(true);
    const second = await rollout('cache');
    expect(await store.arm(second, request(6))).to.deep.include({ ok: false, status: 409 });
    expect((await store.act(first, 'cancel', 'spec', 'make room')).ok).to.equal(true);
    expect((await store.arm(second, request(6))).ok).to.equal(true);
  });
});
