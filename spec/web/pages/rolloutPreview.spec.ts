import { expect } from 'chai';
import { resolveLimit } from '../../../src/projections/jobs/amount.ts';
import { stageNumbers } from '../../../src/web/pages/rolloutPreview.ts';

describe('the Roll out… form numbers', () => {
  it('rounds a gate share down, so 10 % of 9 reached trips at the first failure', () => {
    expect(resolveLimit({ percent: 10 }, 9)).to.equal(0);
    expect(resolveLimit({ percent: 10 }, 10)).to.equal(1);
    expect(resolveLimit({ count: 5 }, 3)).to.equal(3);
  });

  it("gives each stage's size and the count that trips each gate at that stage", () => {
    const stages = stageNumbers(
      { stages: [{ count: 1 }, { percent: 50 }, { percent: 100 }], gates: { maxFailed: { percent: 10 } } },
      67,
    );
    expect(stages.map((s) => [s.size, s.reached])).to.deep.equal([
      [1, 1],
      [33, 34],
      [33, 67],
    ]);
    expect(stages.map((s) => s.gates[0]!.tripsAt)).to.deep.equal([1, 4, 7]);
  });

  it('shows the canary stage pausing on its first failure whatever max_failed says', () => {
    const [canary, rest] = stageNumbers(
      { stages: [{ count: 1 }, { percent: 100 }], gates: { maxFailed: { percent: 10 } } },
      20,
    );
    expect(canary!.gates).to.deep.equal([{ gate: 'failed', setting: '0', tripsAt: 1 }]);
    expect(rest!.gates).to.deep.equal([{ gate: 'failed', setting: '10%', tripsAt: 3 }]);
  });

  it('says when a gate cannot trip at a stage', () => {
    const [, second] = stageNumbers(
      { stages: [{ count: 1 }, { count: 3 }, { percent: 100 }], gates: { maxFailed: { count: 5 } } },
      20,
    );
    expect(second!.gates[0]!.tripsAt).to.equal(undefined);
  });
});
