// The history sampler's pass over a large fleet, in virtual time: taken over several turns of the
// scheduler (one turn over 100,000 agents delayed every socket behind it), recorded once whole and
// at the time it started, and never two at once.

import { expect } from 'chai';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { historySeries } from '../../../src/projections/history/fleetSample.ts';
import { agentsPerTurn, createHistorySampler } from '../../../src/projections/history/historySampler.ts';
import { VirtualClock } from '../../support/virtualTime.ts';

describe('history sampler', () => {
  it('counts a large fleet over several turns, records it whole at its start, and takes one at a time', () => {
    const clock = new VirtualClock();
    const size = 2 * agentsPerTurn + 10;
    const fleet = Array.from(
      { length: size },
      () => ({ connected: true, health: null }) as unknown as AgentState,
    );
    let walked = 0;
    const sampler = createHistorySampler({
      agents: function* () {
        for (const agent of fleet) {
          walked++;
          yield agent;
        }
      },
      configStateOf: () => 'unmanaged',
      traffic: () => ({ messages: 0, errors: 0 }),
      scheduler: clock.scheduler,
      onError: (_, error) => {
        throw error;
      },
    });
    const started = clock.now();
    sampler.sampleNow();
    expect(walked, 'agents counted in the first turn').to.equal(agentsPerTurn);
    expect(sampler.history.read('1h').at).to.deep.equal([]);
    sampler.sampleNow();
    clock.advance(0);
    const read = sampler.history.read('1h');
    expect(read.at, 'one sample, at the time it started').to.deep.equal([started]);
    expect(read.columns[historySeries.indexOf('size')]).to.deep.equal([size]);
    expect(walked, 'the second call was skipped while the first was under way').to.equal(size);
    sampler.stop();
  });
});
