import { expect } from 'chai';
import type { StageStateCount } from '../../../src/projections/jobs/jobStore.ts';
import { parseAmount, type Amount } from '../../../src/projections/jobs/amount.ts';
import { rolloutStages } from '../../../src/web/pages/stageProgress.ts';

const amounts = (...values: (number | string)[]): Amount[] => values.map((v) => parseAmount(v)!);
const c = (stage: number | null, state: StageStateCount['state'], count: number): StageStateCount => ({
  stage,
  state,
  count,
});
const shape = (rows: ReturnType<typeof rolloutStages>) =>
  rows.map((r) => ({
    stage: r.stage,
    amount: r.amount,
    upTo: r.upTo,
    reached: r.reached,
    bar: r.bar.summary,
  }));

describe('rollout progress per stage', () => {
  it('sizes every stage from the pending targets before the first is reached', () => {
    const rows = rolloutStages(amounts(1, '50%', '100%'), 0, [c(null, 'pending', 12), c(null, 'skipped', 2)]);
    expect(shape(rows)).to.deep.equal([
      { stage: 1, amount: '1 target', upTo: 1, reached: false, bar: '1 pending' },
      { stage: 2, amount: '50%', upTo: 6, reached: false, bar: '5 pending' },
      { stage: 3, amount: '100%', upTo: 12, reached: false, bar: '6 pending' },
    ]);
  });

  it('shows the targets released in each stage reached by state, and plans the rest', () => {
    const rows = rolloutStages(amounts(1, '50%', '100%'), 2, [
      c(1, 'succeeded', 1),
      c(2, 'succeeded', 3),
      c(2, 'in_flight', 1),
      c(2, 'failed', 1),
      c(null, 'pending', 6),
    ]);
    expect(shape(rows)).to.deep.equal([
      { stage: 1, amount: '1 target', upTo: 1, reached: true, bar: '1 succeeded' },
      { stage: 2, amount: '50%', upTo: 6, reached: true, bar: '3 succeeded, 1 failed, 1 in flight' },
      { stage: 3, amount: '100%', upTo: 12, reached: false, bar: '6 pending' },
    ]);
    expect(rows[1]!.bar.finished).to.equal(4);
  });

  it('puts targets cancelled before their turn in the stages the job never reached', () => {
    const rows = rolloutStages(amounts('25%', '100%'), 1, [c(1, 'succeeded', 2), c(null, 'cancelled', 6)]);
    expect(shape(rows).map((r) => r.bar)).to.deep.equal(['2 succeeded', '6 cancelled']);
  });

  it('keeps rolled-back targets in the stage they were released in', () => {
    const rows = rolloutStages(amounts(1, '100%'), 2, [
      c(1, 'rolled_back', 1),
      c(2, 'rolled_back', 2),
      c(2, 'failed', 1),
    ]);
    expect(shape(rows).map((r) => r.bar)).to.deep.equal(['1 rolled back', '1 failed, 2 rolled back']);
  });

  it('shows a reached stage that released nothing as an empty bar', () => {
    const rows = rolloutStages(amounts('0%', '100%'), 1, [c(null, 'pending', 3)]);
    expect(shape(rows)).to.deep.equal([
      { stage: 1, amount: '0%', upTo: 0, reached: true, bar: 'no targets' },
      { stage: 2, amount: '100%', upTo: 3, reached: false, bar: '3 pending' },
    ]);
  });

  it('sizes later stages over the targets that joined a live rollout since', () => {
    // Released 1 of 4 in stage 1; 4 more joined: 50% of 8 is 4, so stage 2 takes 3 more.
    const rows = rolloutStages(amounts(1, '50%', '100%'), 1, [c(1, 'succeeded', 1), c(null, 'pending', 7)]);
    expect(shape(rows).map((r) => r.upTo)).to.deep.equal([1, 4, 8]);
  });
});
