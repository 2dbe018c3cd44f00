import { expect } from 'chai';
import { parseAmount, resolveAmount } from '../../../src/projections/jobs/amount.ts';
import { parseActionSettings } from '../../../src/projections/jobs/jobActions.ts';
import { allowedCommands, isFinal, nextStatus } from '../../../src/projections/jobs/jobLifecycle.ts';

describe('job lifecycle', () => {
  it('moves planned → armed → running → succeeded, with pause, resume, rollback and cancel', () => {
    expect(nextStatus('planned', 'arm')).to.equal('armed');
    expect(nextStatus('armed', 'start')).to.equal('running');
    expect(nextStatus('running', 'trip')).to.equal('paused');
    expect(nextStatus('paused', 'resume')).to.equal('running');
    expect(nextStatus('paused', 'rollback')).to.equal('failed');
    expect(nextStatus('running', 'succeed')).to.equal('succeeded');
    for (const status of ['planned', 'armed', 'running', 'paused', 'awaiting_promotion'] as const)
      expect(nextStatus(status, 'cancel')).to.equal('cancelled');
  });

  it('holds a rollout that ended with failures until an operator promotes it or rolls it back', () => {
    expect(nextStatus('running', 'hold')).to.equal('awaiting_promotion');
    expect(allowedCommands('awaiting_promotion')).to.deep.equal(['cancel', 'rollback', 'promote']);
    expect(nextStatus('awaiting_promotion', 'promote')).to.equal('succeeded');
    expect(nextStatus('awaiting_promotion', 'rollback')).to.equal('failed');
    expect(nextStatus('awaiting_promotion', 'resume')).to.equal(undefined);
    expect(nextStatus('running', 'promote'), 'promotion is only a decision on a held rollout').to.equal(
      undefined,
    );
  });

  it('refuses every move out of an end, and a move that does not apply', () => {
    for (const status of ['succeeded', 'failed', 'cancelled'] as const) {
      expect(isFinal(status)).to.equal(true);
      expect(allowedCommands(status)).to.deep.equal([]);
    }
    expect(nextStatus('planned', 'pause')).to.equal(undefined);
    expect(nextStatus('armed', 'arm')).to.equal(undefined);
    expect(nextStatus('running', 'resume')).to.equal(undefined);
  });
});

describe('job amounts and action settings', () => {
  it('reads counts and shares of the targets, rounding shares up', () => {
    expect(parseAmount(3)).to.deep.equal({ count: 3 });
    expect(parseAmount('10%')).to.deep.equal({ percent: 10 });
    expect(resolveAmount({ percent: 10 }, 5)).to.equal(1);
    expect(resolveAmount({ percent: 50 }, 5)).to.equal(3);
    expect(resolveAmount({ count: 9 }, 5)).to.equal(5);
    for (const bad of [-1, 1.5, '101%', 'ten', null])
      expect(parseAmount(bad), String(bad)).to.equal(undefined);
  });

  it('gives restarts and rollouts their defaults, and names the known actions for an unknown one', () => {
    const restart = parseActionSettings('restart', {});
    expect(restart).to.deep.equal({
      ok: true,
      value: {
        action: 'restart',
        reconnectTimeoutMs: 120_000,
        batchSize: { count: 10 },
        backoffCapMs: 60_000,
      },
    });
    const rollout = parseActionSettings('config_rollout', {
      config: 'base',
      revision: 3,
      stages: [1, '10%', '100%'],
      gates: { max_failed: '5%' },
    });
    expect(rollout.ok && rollout.value).to.deep.include({
      stages: [{ count: 1 }, { percent: 10 }, { percent: 100 }],
      waitMs: 0,
      gates: { maxFailed: { percent: 5 } },
    });
    const unknown = parseActionSettings('reboot', {});
    expect(!unknown.ok && unknown.error).to.equal(
      'action "reboot" is not one this service knows (restart, config_rollout)',
    );
  });

  it("reads a restart's backoff_cap as the seed writes it: the longest wait between batches", () => {
    expect(parseActionSettings('restart', { reconnect_timeout: '5m', backoff_cap: '10m' })).to.deep.equal({
      ok: true,
      value: {
        action: 'restart',
        reconnectTimeoutMs: 300_000,
        batchSize: { count: 10 },
        backoffCapMs: 600_000,
      },
    });
    const sized = parseActionSettings('restart', { backoff_cap: '30s', batch_size: '25%' });
    expect(sized.ok && sized.value).to.deep.include({ batchSize: { percent: 25 }, backoffCapMs: 30_000 });
  });

  it('keeps running restarts recorded with a batch size in backoff_cap, without waits', () => {
    for (const [cap, size] of [
      [4, { count: 4 }],
      ['4', { count: 4 }],
      ['25%', { percent: 25 }],
    ] as const) {
      const parsed = parseActionSettings('restart', { backoff_cap: cap });
      expect(parsed.ok && parsed.value, String(cap)).to.deep.include({ batchSize: size, backoffCapMs: 0 });
    }
  });

  it('refuses settings that cannot be run', () => {
    const problems: [string, Record<string, unknown>, string][] = [
      ['restart', { reconnect_timeout: 'soon' }, 'reconnect_timeout must be a duration'],
      ['restart', { backoff_cap: 0 }, 'at least one restart'],
      ['restart', { batch_size: 0 }, 'batch_size must let at least one restart through'],
      ['restart', { backoff_cap: 'later' }, 'backoff_cap must be a duration such as 10m'],
      ['restart', { backoff_cap: 4, batch_size: 2 }, 'the batch size goes in batch_size'],
      ['restart', { colour: 'red' }, 'unknown key(s) colour'],
      ['config_rollout', { revision: 2 }, 'must name the config'],
      ['config_rollout', { config: 'a' }, 'draft revision'],
      ['config_rollout', { config: 'a', revision: 2, stages: ['10%', '50%'] }, 'must be "100%"'],
      [
        'config_rollout',
        { config: 'a', revision: 2, gates: { max_broken: 1 } },
        'action_config.gates has unknown',
      ],
    ];
    for (const [action, config, message] of problems) {
      const parsed = parseActionSettings(action, config);
      expect(!parsed.ok && parsed.error, message).to.include(message);
    }
  });
});
