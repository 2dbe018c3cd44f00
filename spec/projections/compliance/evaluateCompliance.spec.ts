import { expect } from 'chai';
import { createEventBus } from '../../../src/events/bus.ts';
import { createComplianceCounters } from '../../../src/projections/compliance/complianceCounters.ts';
import {
  diffCompliance,
  evaluateCompliance,
} from '../../../src/projections/compliance/evaluateCompliance.ts';
import { uid } from '../../support/events.ts';

const d = (identifying: Record<string, string>, nonIdentifying: Record<string, string> = {}) => ({
  identifying,
  nonIdentifying,
});

describe('compliance', () => {
  const cases: [string, ReturnType<typeof d>, string[], string[], string[]][] = [
    ['nothing required', d({ a: '1' }), [], [], []],
    ['missing keys in configuration order', d({}), ['z', 'a', 'm'], ['z', 'a', 'm'], []],
    ['a key present with an empty value counts as present', d({ env: '' }), ['env'], [], []],
    [
      'a key in the non-identifying map counts as present',
      d({}, { env: 'prod' }),
      ['env', 'team'],
      ['team'],
      [],
    ],
    [
      'reserved keys in either map are conflicts',
      d({ healthy: 'x' }, { via_gateway: 'y', connected: '' }),
      [],
      [],
      ['healthy', 'connected', 'via_gateway'],
    ],
  ];
  for (const [title, description, required, missing, conflicts] of cases) {
    it(title, () => {
      expect(evaluateCompliance(description, required)).to.deep.equal({ missing, conflicts });
    });
  }

  it('reports no change when both lists are the same', () => {
    expect(diffCompliance({ missing: ['a'], conflicts: [] }, { missing: ['a'], conflicts: [] })).to.equal(
      undefined,
    );
  });

  it('names only the keys that newly went missing or newly collide', () => {
    const change = diffCompliance(
      { missing: ['a'], conflicts: [] },
      { missing: ['a', 'b'], conflicts: ['healthy'] },
    );
    expect(change).to.deep.include({
      newlyMissing: ['b'],
      newlyConflicting: ['healthy'],
      missing: ['a', 'b'],
    });
  });

  it('counts, per key, how often it went missing and how often it collided', () => {
    const bus = createEventBus();
    const counters = createComplianceCounters(bus.events$, () => {});
    const change = (
      missing: string[],
      newlyMissing: string[],
      conflicts: string[] = [],
      newlyConflicting: string[] = [],
    ) =>
      bus.publish({
        type: 'AgentComplianceChanged',
        at: 1,
        data: { uid: uid(1), missing, conflicts, newlyMissing, newlyConflicting },
      });
    change(['env'], ['env']);
    change(['env', 'team'], ['team'], ['healthy'], ['healthy']);
    change([], []);
    change(['env'], ['env']);
    expect(Object.fromEntries(counters.current().missing)).to.deep.equal({ env: 2, team: 1 });
    expect(Object.fromEntries(counters.current().conflicts)).to.deep.equal({ healthy: 1 });
  });
});
