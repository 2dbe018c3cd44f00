// The job page's gate panel, rendered from a job record (docs/jobs.md "Gates"): it says which gate
// paused the job and by how many targets, and, while paused, what Resume does: it accepts the
// failures so far, and the gates then count only new ones. A trip after a resume says how many the
// resume accepted besides the new ones.

import { expect } from 'chai';
import type { Job, JobGate } from '../../../src/projections/jobs/jobStore.ts';
import { parseJobQuery } from '../../../src/web/pages/jobQuery.ts';
import { jobPageLocals } from '../../../src/web/pages/jobPageModel.ts';
import { createRenderer } from '../../../src/web/pages/render.ts';
import { text } from './jobsHarness.ts';

const uid = '018f0000-0000-7000-8000-000000000001';
const job = (over: Partial<Job>): Job => ({
  id: '018f0000-0000-7000-8000-0000000000aa',
  filter: 'service.name=checkout',
  action: 'config_rollout',
  action_config: { config: 'edge', revision: 2, stages: [1, '100%'] },
  submitted_by: 'spec',
  status: 'paused',
  target_mode: 'snapshot',
  created_at: '2026-11-27T10:00:00.000Z',
  armed_at: '2026-11-27T10:00:00.000Z',
  dispatch_at: '2026-11-27T10:00:00.000Z',
  cancelled_at: null,
  started_at: '2026-11-27T10:00:00.000Z',
  paused_at: '2026-11-27T10:01:00.000Z',
  stage: 1,
  from_revision: 1,
  ...over,
});

const render = createRenderer({ pollIntervalMs: 1000 });
/** The gate panel's text, up to the next panel. */
function gatePanel(record: Job): string {
  const locals = jobPageLocals(
    { job: record, targets: [], events: [], byStage: [] },
    parseJobQuery(new URLSearchParams()),
    { now: Date.parse('2026-11-27T10:02:00.000Z'), writable: true, nameOf: () => 'checkout-1' },
  );
  const html = render('partials/job', locals);
  const start = html.indexOf('<h2>Gate that paused it</h2>');
  expect(start, 'a gate panel').to.be.greaterThan(-1);
  return text(html.slice(start, html.indexOf('<div class="grid job-grid">', start)));
}

describe('the job page’s gate panel', () => {
  const gate: JobGate = { gate: 'max_failed', limit: 0, count: 1, agents: [uid] };

  it('says what Resume does while the job is paused by its gate', () => {
    const panel = gatePanel(job({ gate, target_counts: { failed: 1, succeeded: 0, pending: 9 } }));
    expect(panel).to.equal(
      'Gate that paused it max_failed : 1 target failed, more than the 0 allowed. ' +
        'Resume accepts the 1 failure so far; the gates then count only new failures. checkout-1',
    );
  });

  it('counts the new failures apart from those the last resume accepted', () => {
    const tripped = { ...gate, count: 2, acknowledged: 3 };
    const panel = gatePanel(
      job({ gate: tripped, stage: 2, target_counts: { failed: 5, succeeded: 4, pending: 1 } }),
    );
    expect(panel).to.include(
      'max_failed : 2 more targets failed since the last resume (which accepted 3), more than the 0 allowed.',
    );
    expect(panel).to.include('Resume accepts the 5 failures so far; the gates then count only new failures.');
  });

  it('names the unhealthy targets a resume accepts when that gate paused it', () => {
    const unhealthy: JobGate = { gate: 'max_unhealthy', limit: 0, count: 1, agents: [] };
    expect(gatePanel(job({ gate: unhealthy, target_counts: { failed: 0 } }))).to.include(
      'Resume accepts the targets turned unhealthy now; the gates then count only new ones.',
    );
    expect(gatePanel(job({ gate: unhealthy, target_counts: { failed: 2 } }))).to.include(
      'Resume accepts the targets turned unhealthy now and the 2 failures so far; the gates then count only new ones.',
    );
  });

  it('says nothing of Resume once the job left the pause', () => {
    const panel = gatePanel(job({ gate, status: 'failed', target_counts: { failed: 1, rolled_back: 1 } }));
    expect(panel).not.to.include('Resume');
  });
});
