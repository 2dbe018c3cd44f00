import { expect } from 'chai';
import { gateLimit, stageNumbers } from '../../../src/web/pages/rolloutPreview.ts';

describe('the Roll out… form numbers', () => {
  it('rounds a gate share down, so 10 % of 9 reached trips at the first failure', () => {
    expect(gateLimit({ percent: 10 }, 9)).to.equal(0);
    expect(gateLimit({ percent: 10 }, 10)).to.equal(1);
    expect(gateLimit({ count: 5 }, 3)).to.equal(3);
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

  it('counts an empty max_failed as 0: the canary failing pauses', () => {
    const [canary] = stageNumbers({ stages: [{ count: 1 }, { percent: 100 }], gates: {} }, 20);
    expect(canary!.gates).to.deep.equal([{ gate: 'failed', setting: '0', tripsAt: 1 }]);
  });

  it('says when a gate cannot trip at a stage', () => {
    const [first] = stageNumbers(
      { stages: [{ count: 2 }, { percent: 100 }], gates: { maxFailed: { count: 5 } } },
      20,
    );
    expect(first!.gates[0]!.tripsAt).to.equal(undefined);
  });
});
