// The Roll out… form and the config_rollout job it makes: pure.

import { expect } from 'chai';
import { rolloutDefaults, rolloutFormOf, rolloutJob } from '../../../src/web/pages/rolloutForm.ts';

describe('rolloutForm', () => {
  it('makes a config_rollout job of the form, leaving empty gates out', () => {
    const form = rolloutFormOf(
      new URLSearchParams({ filter: 'connected=true', stages: ' 1, 50% ,100%,', wait: '', max_failed: '2' }),
    );
    expect(rolloutJob(form, 'edge', 3, 'ops')).to.deep.equal({
      ok: true,
      value: {
        filter: 'connected=true',
        action: 'config_rollout',
        action_config: {
          config: 'edge',
          revision: 3,
          stages: ['1', '50%', '100%'],
          wait: '0s',
          gates: { max_failed: '2' },
        },
        submitted_by: 'ops',
      },
    });
  });

  it('takes its defaults as they are', () => {
    expect(rolloutJob(rolloutDefaults, 'edge', 2, 'ops').ok).to.equal(true);
  });

  it('refuses what arming would refuse, with its reason', () => {
    const refused = (fields: Record<string, string>) => {
      const job = rolloutJob({ ...rolloutDefaults, ...fields }, 'edge', 2, 'ops');
      return job.ok ? '' : job.error;
    };
    expect(refused({ stages: '1, 50%' })).to.include('must be "100%"');
    expect(refused({ wait: 'soon' })).to.include('action_config.wait must be a duration');
    expect(refused({ maxFailed: 'many' })).to.include('action_config.gates.max_failed');
    expect(refused({ filter: '' })).to.include('the filter is required');
  });
});
