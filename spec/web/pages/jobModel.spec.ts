import { expect } from 'chai';
import type { Job } from '../../../src/projections/jobs/jobStore.ts';
import { jobRow, lastMoveAt, stageText } from '../../../src/web/pages/jobModel.ts';
import { progressBar } from '../../../src/web/pages/progressBar.ts';

const job = (over: Partial<Job> = {}): Job => ({
  id: '0190aaaa-0000-4000-8000-000000000001',
  filter: 'connected=true',
  action: 'restart',
  action_config: {},
  submitted_by: 'ops@example.com',
  status: 'running',
  target_mode: 'snapshot',
  created_at: '2026-01-01T00:00:00.000Z',
  armed_at: '2026-01-01T00:01:00.000Z',
  dispatch_at: '2026-01-01T00:01:00.000Z',
  cancelled_at: null,
  started_at: '2026-01-01T00:01:01.000Z',
  stage: 2,
  ...over,
});

describe('job rows and progress bars', () => {
  it('draws targets by state, finished first, with widths that add up to the whole bar', () => {
    const bar = progressBar({ pending: 2, succeeded: 5, in_flight: 1, failed: 2, skipped: 0 });
    expect(bar.segments.map((s) => [s.state, s.count, s.x, s.width])).to.deep.equal([
      ['succeeded', 5, '0.000', '50.000'],
      ['failed', 2, '50.000', '20.000'],
      ['in_flight', 1, '70.000', '10.000'],
      ['pending', 2, '80.000', '20.000'],
    ]);
    expect(bar).to.include({
      total: 10,
      finished: 7,
      summary: '5 succeeded, 2 failed, 1 in flight, 2 pending',
    });
    expect(progressBar({}).summary).to.equal('no targets');
  });

  it('says where a job stands: batches for a restart, stages for a rollout', () => {
    expect(stageText(job({ status: 'planned', stage: 0 }), undefined)).to.equal('Not armed yet');
    expect(stageText(job({ stage: 0 }), undefined)).to.equal('No batch sent yet');
    expect(stageText(job({ stage: 1 }), undefined)).to.equal('1 batch sent');
    expect(stageText(job(), undefined)).to.equal('2 batches sent');
    expect(stageText(job({ action: 'config_rollout' }), 3)).to.equal('Stage 2 of 3');
    expect(stageText(job({ action: 'config_rollout', stage: 0 }), 3)).to.equal('No stage reached yet');
  });

  it('dates a job by its latest move', () => {
    expect(lastMoveAt(job())).to.equal('2026-01-01T00:01:01.000Z');
    expect(lastMoveAt(job({ finished_at: '2026-01-02T00:00:00.000Z' }))).to.equal('2026-01-02T00:00:00.000Z');
    expect(lastMoveAt(job({ armed_at: null, started_at: null }))).to.equal('2026-01-01T00:00:00.000Z');
  });

  it('names what a job acts on: a rollout’s config and revision, else its filter', () => {
    const rollout = jobRow(job({ action: 'config_rollout', action_config: { config: 'otel', revision: 4 } }));
    expect(rollout).to.include({ action: 'Config rollout', subject: 'otel #4', href: `/jobs/${rollout.id}` });
    expect(jobRow(job()).subject).to.equal('connected=true');
    expect(jobRow(job({ filter: '' })).subject).to.equal('every agent');
    expect(jobRow(job({ action: 'reboot' })).action).to.equal('reboot');
  });

  it('says under a job’s bar what it holds, or why it is empty', () => {
    expect(jobRow(job({ target_counts: { succeeded: 1, cancelled: 5 } })).barNote).to.equal(
      '1 succeeded, 5 cancelled',
    );
    expect(jobRow(job({ status: 'planned', target_counts: {} })).barNote).to.equal(
      'targets are found when armed',
    );
    expect(jobRow(job({ status: 'cancelled', target_counts: {} })).barNote).to.equal('no targets');
  });
});
