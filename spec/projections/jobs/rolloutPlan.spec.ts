import { expect } from 'chai';
import { restartBatchSize, restartWaitMs } from '../../../src/projections/jobs/restartPlan.ts';
import {
  planRollout,
  stageCounts,
  trippedGate,
  type RolloutProgress,
} from '../../../src/projections/jobs/rolloutPlan.ts';

const stages = [{ count: 1 }, { percent: 10 }, { percent: 50 }, { percent: 100 }];

describe('rollout stages', () => {
  it('turns stages into cumulative counts that never shrink and end at every target', () => {
    expect(stageCounts(stages, 200)).to.deep.equal([1, 20, 100, 200]);
    expect(stageCounts(stages, 3)).to.deep.equal([1, 1, 2, 3]);
    expect(stageCounts([{ count: 5 }, { percent: 10 }, { percent: 100 }], 20)).to.deep.equal([5, 5, 20]);
  });

  it('starts at once, waits for every reached target, pauses between stages, then finishes', () => {
    const p = (over: Partial<RolloutProgress>): RolloutProgress => ({
      stage: 0,
      stageAt: 0,
      total: 200,
      reached: 0,
      finished: 0,
      lastFinishedAt: 0,
      ...over,
    });
    expect(planRollout(p({}), stages, 60_000, 0)).to.deep.equal({ kind: 'advance', stage: 1, assign: 1 });
    expect(planRollout(p({ stage: 1, reached: 1 }), stages, 60_000, 10)).to.deep.equal({ kind: 'wait' });
    const done = p({ stage: 1, stageAt: 0, reached: 1, finished: 1, lastFinishedAt: 30_000 });
    expect(planRollout(done, stages, 60_000, 89_999)).to.deep.equal({ kind: 'wait' });
    expect(planRollout(done, stages, 60_000, 90_000)).to.deep.equal({
      kind: 'advance',
      stage: 2,
      assign: 19,
    });
    const last = p({ stage: 4, reached: 200, finished: 200 });
    expect(planRollout(last, stages, 60_000, 0)).to.deep.equal({ kind: 'finish' });
  });
});

describe('rollout gates', () => {
  // docs/jobs.md "Gates": the worked table, row by row (reached × share → the failure that trips).
  for (const [reached, share, trips] of [
    [1, 10, 1],
    [9, 10, 1],
    [10, 10, 2],
    [19, 10, 2],
    [20, 10, 3],
    [4, 25, 2],
    [3, 25, 1],
    [67, 5, 4],
    [100, 0, 1],
  ] as const)
    it(`trips ${share}% of ${reached} reached at failure ${trips}: a share rounds down`, () => {
      const gates = { maxFailed: { percent: share } };
      const at = (failed: number) => trippedGate(gates, { reached, failed, unhealthy: 0, disconnected: 0 });
      expect(at(trips - 1)).to.equal(undefined);
      expect(at(trips)).to.deep.equal({ gate: 'max_failed', limit: trips - 1, count: trips });
    });

  it('takes max_failed as 0 in the canary stage whatever was asked', () => {
    const gates = { maxFailed: { count: 5 } };
    const counts = { reached: 10, failed: 1, unhealthy: 0, disconnected: 0 };
    expect(trippedGate(gates, counts)).to.equal(undefined);
    expect(trippedGate(gates, counts, true)).to.deep.equal({ gate: 'max_failed', limit: 0, count: 1 });
  });

  it('counts only the targets beyond those accepted at the last resume, the canary rule too', () => {
    const gates = { maxFailed: { count: 1 }, maxUnhealthy: { count: 0 } };
    const counts = { reached: 10, failed: 3, unhealthy: 1, disconnected: 0 };
    const accepted = { failed: 2, unhealthy: 1, disconnected: 0 };
    expect(trippedGate(gates, counts, false, accepted), '3 - 2 accepted is within 1').to.equal(undefined);
    expect(trippedGate(gates, counts, true, accepted)).to.deep.equal({
      gate: 'max_failed',
      limit: 0,
      count: 1,
      acknowledged: 2,
    });
    expect(trippedGate(gates, counts, true, { ...accepted, failed: 3 })).to.equal(undefined);
    expect(trippedGate(gates, { ...counts, unhealthy: 2 }, false, accepted)).to.deep.equal({
      gate: 'max_unhealthy',
      limit: 0,
      count: 1,
      acknowledged: 1,
    });
  });

  it('trips the first gate whose count exceeds its limit, shares taken of the targets reached', () => {
    const gates = { maxFailed: { percent: 10 }, maxDisconnected: { count: 2 } };
    expect(trippedGate(gates, { reached: 20, failed: 2, unhealthy: 9, disconnected: 2 })).to.equal(undefined);
    expect(trippedGate(gates, { reached: 20, failed: 3, unhealthy: 0, disconnected: 0 })).to.deep.equal({
      gate: 'max_failed',
      limit: 2,
      count: 3,
    });
    expect(trippedGate(gates, { reached: 20, failed: 0, unhealthy: 0, disconnected: 3 })?.gate).to.equal(
      'max_disconnected',
    );
    expect(
      trippedGate({ maxFailed: { count: 0 } }, { reached: 1, failed: 1, unhealthy: 0, disconnected: 0 }),
    ).to.not.equal(undefined);
  });
});

describe('restart batches', () => {
  it('wait nothing before the first, then 1 s, 2 s, 4 s, … up to the backoff cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => restartWaitMs(n, 10_000))).to.deep.equal([
      0, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(restartWaitMs(40, 600_000), 'no overflow far out').to.equal(600_000);
    expect(restartWaitMs(3, 0), 'a cap of zero never waits').to.equal(0);
  });

  it('start at one and double up to the batch size', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => restartBatchSize(n, { count: 10 }, 100))).to.deep.equal([
      1, 2, 4, 8, 10, 10,
    ]);
    expect(restartBatchSize(9, { percent: 100 }, 300)).to.equal(300);
    expect(restartBatchSize(0, { percent: 1 }, 10), 'never less than one').to.equal(1);
  });
});
