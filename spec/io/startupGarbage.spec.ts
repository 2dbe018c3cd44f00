import { expect } from 'chai';
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseStartupGarbage } from '../../src/io/startupGarbage.ts';

const youngGeneration = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

describe('releasing startup garbage', () => {
  it('shrinks a young generation that startup grew', () => {
    // Survivors of many scavenges grow the young generation as loading code does.
    let kept: unknown[] = [];
    for (let round = 0; round < 40; round++) {
      kept = [];
      for (let i = 0; i < 50_000; i++) kept.push({ i, text: `x${i}` });
    }
    expect(kept).to.have.length(50_000);
    const grown = youngGeneration();
    kept = [];
    releaseStartupGarbage();
    expect(youngGeneration()).to.be.below(grown);
  });

  it('leaves no gc function to any context', () => {
    releaseStartupGarbage();
    expect(runInNewContext('typeof gc')).to.equal('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).to.equal('undefined');
  });
});
