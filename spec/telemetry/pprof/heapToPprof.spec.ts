import { expect } from 'chai';
import { Profile } from 'pprof-format';
import { heapToPprof } from '../../../src/telemetry/pprof/heapToPprof.ts';
import { frame, stacks } from './pprofStacks.ts';

describe('V8 sampling heap profile as pprof', () => {
  it('turns a sampling heap profile into in-use objects and bytes per stack', () => {
    const heap = {
      head: {
        id: 1,
        callFrame: frame('(root)', -1, ''),
        selfSize: 0,
        children: [
          {
            id: 2,
            callFrame: frame('load', 2),
            selfSize: 1024,
            children: [{ id: 3, callFrame: frame('parse', 7), selfSize: 4096, children: [] }],
          },
        ],
      },
      samples: [
        { nodeId: 2, size: 1024, ordinal: 1 },
        { nodeId: 3, size: 2048, ordinal: 2 },
        { nodeId: 3, size: 2048, ordinal: 3 },
      ],
    };
    const p = Profile.decode(heapToPprof(heap, 512 * 1024, 0).encode());
    expect(stacks(p)).to.deep.equal({ load: [1, 1024], 'parse<load': [2, 4096] });
  });
});
