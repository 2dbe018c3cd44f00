import { expect } from 'chai';
import type { Job } from '../../../src/projections/jobs/jobStore.ts';
import { jobSettings, shortDuration } from '../../../src/web/pages/jobSettings.ts';

const job = (action: string, action_config: Record<string, unknown>, over: Partial<Job> = {}): Job => ({
  id: '00000000-0000-4000-8000-000000000001',
  filter: '',
  action,
  action_config,
  submitted_by: 'spec',
  status: 'planned',
  target_mode: null,
  created_at: '2026-01-01T00:00:00.000Z',
  armed_at: null,
  dispatch_at: null,
  cancelled_at: null,
  ...over,
});
const words = (settings: ReturnType<typeof jobSettings>) =>
  settings.items.map((i) => `${i.term}: ${i.text}${i.href === undefined ? '' : ` <${i.href}>`}`);

describe('job settings in words', () => {
  it('says how long a restart waits and how fast it goes, with the defaults it runs with', () => {
    expect(words(jobSettings(job('restart', {})))).to.deep.equal([
      'Reconnect timeout: 2m',
      'Batch size: 10',
      'Backoff cap: 1m',
    ]);
    expect(
      words(jobSettings(job('restart', { reconnect_timeout: '5m', backoff_cap: '10m', batch_size: '25%' }))),
    ).to.deep.equal(['Reconnect timeout: 5m', 'Batch size: 25% of the targets', 'Backoff cap: 10m']);
  });

  it('shows a restart recorded with a batch size in backoff_cap as it runs: no wait', () => {
    expect(
      words(jobSettings(job('restart', { reconnect_timeout: '90s', backoff_cap: '25%' }))),
    ).to.deep.equal(['Reconnect timeout: 1m 30s', 'Batch size: 25% of the targets', 'Backoff cap: no wait']);
  });

  it('names a rollout’s config with a link, its revision, stages, wait and gates', () => {
    const settings = jobSettings(
      job(
        'config_rollout',
        {
          config: 'otel/edge',
          revision: 3,
          stages: [1, '50%', '100%'],
          wait: '5m',
          gates: { max_failed: 1 },
        },
        { from_revision: 2 },
      ),
    );
    expect(words(settings)).to.deep.equal([
      'Config: otel/edge </configs/otel%2Fedge>',
      'Revision: #3',
      'Stages: 1 → 50% → 100%',
      'Wait: 5m',
      'Gates: max_failed 1',
      'Apply timeout: 10m',
      'Disconnect window: 2m',
    ]);
    expect(settings.items[1]!.note).to.equal('from #2, current when armed');
    expect(settings.stages).to.have.length(3);
  });

  it('says a rollout without gates has max_failed 0, and one without wait has none', () => {
    const items = jobSettings(job('config_rollout', { config: 'c', revision: 2 })).items;
    expect(items.find((i) => i.term === 'Gates')!.text).to.equal('max_failed 0');
    expect(items.find((i) => i.term === 'Wait')!.text).to.equal('none');
  });

  it('shows settings that do not parse as recorded, with the reason', () => {
    const settings = jobSettings(job('reboot', { now: true }));
    expect(settings.items).to.deep.equal([]);
    expect(settings.error).to.match(/"reboot" is not one this service knows/);
    expect(settings.raw).to.include('"now": true');
  });

  it('writes durations without their zero parts', () => {
    expect([0, 30_000, 120_000, 5_400_000, 86_400_000].map(shortDuration)).to.deep.equal([
      '0s',
      '30s',
      '2m',
      '1h 30m',
      '1d',
    ]);
  });
});
