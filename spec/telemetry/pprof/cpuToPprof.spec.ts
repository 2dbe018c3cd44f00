import { expect } from 'chai';
import type { Profiler } from 'node:inspector';
import { Profile } from 'pprof-format';
import { cpuToPprof } from '../../../src/telemetry/pprof/cpuToPprof.ts';
import { frame, stacks } from './pprofStacks.ts';

describe('V8 CPU profile as pprof', () => {
  it('turns CPU samples into leaf-first stacks with sample counts and time', () => {
    // (root) → main → work; (root) → main → idle-ish "(program)"
    const v8: Profiler.Profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', -1, ''), children: [2] },
        { id: 2, callFrame: frame('main', 0), children: [3, 4] },
        { id: 3, callFrame: frame('work', 9), children: [] },
        { id: 4, callFrame: frame('', 20), children: [] },
      ],
      startTime: 1_000,
      endTime: 5_000,
      samples: [3, 3, 4, 2],
      timeDeltas: [0, 1000, 1000, 1000],
    };
    const p = Profile.decode(cpuToPprof(v8, 1000, 1_700_000_000_000).encode());
    expect(stacks(p)).to.deep.equal({
      'work<main': [2, 2_000_000],
      '(anonymous)<main': [1, 1_000_000],
      main: [1, 1_000_000],
    });
    expect(Number(p.durationNanos)).to.equal(4_000_000);
    expect(Number(p.period)).to.equal(1_000_000);
    expect(BigInt(p.timeNanos)).to.equal(1_700_000_000_000_000_000n);
  });

  it('names functions with 1-based lines and deduplicates them across nodes', () => {
    const v8: Profiler.Profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', -1, ''), children: [2, 3] },
        { id: 2, callFrame: frame('f', 4), children: [] },
        { id: 3, callFrame: frame('g', 0), children: [4] },
        { id: 4, callFrame: frame('f', 4), children: [] },
      ],
      startTime: 0,
      endTime: 2000,
      samples: [2, 4],
      timeDeltas: [0, 1000],
    };
    const p = Profile.decode(cpuToPprof(v8, 1000, 0).encode());
    expect(p.function).to.have.length(2);
    const f = p.function.find((x) => p.stringTable.strings[Number(x.name)] === 'f');
    expect(Number(f?.startLine)).to.equal(5);
    expect(p.stringTable.strings[Number(f?.filename)]).to.equal('file:///app/main.js');
    expect(stacks(p)).to.deep.equal({ f: [1, 1_000_000], 'f<g': [1, 1_000_000] });
  });
});
