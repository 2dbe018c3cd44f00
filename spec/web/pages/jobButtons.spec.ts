import { expect } from 'chai';
import type { Job } from '../../../src/projections/jobs/jobStore.ts';
import { jobButtons } from '../../../src/web/pages/jobButtons.ts';
import { jobQueryString, parseJobQuery } from '../../../src/web/pages/jobQuery.ts';

const id = '0190aaaa-0000-4000-8000-000000000001';
const job = (over: Partial<Job>): Job => ({
  id,
  filter: '',
  action: 'config_rollout',
  action_config: {},
  submitted_by: 'spec',
  status: 'running',
  target_mode: 'snapshot',
  created_at: '2026-01-01T00:00:00.000Z',
  armed_at: null,
  dispatch_at: null,
  cancelled_at: null,
  ...over,
});
const shown = (j: Job, query = parseJobQuery(new URLSearchParams())) =>
  jobButtons(j, query, true).buttons.map((b) => `${b.label} ${b.kind} ${b.url.slice(`/jobs/${id}/`.length)}`);

describe('job page buttons', () => {
  it('offers the moves a job allows now, with their style', () => {
    expect(shown(job({ status: 'planned', action: 'restart' }))).to.deep.equal([
      'Arm primary arm',
      'Arm live secondary arm?target_mode=live',
      'Cancel job danger cancel',
    ]);
    expect(shown(job({ status: 'running' }))).to.deep.equal([
      'Pause secondary pause',
      'Cancel job danger cancel',
      'Roll back danger rollback',
    ]);
    expect(shown(job({ status: 'paused', action: 'restart' }))).to.deep.equal([
      'Resume primary resume',
      'Cancel job danger cancel',
    ]);
    expect(shown(job({ status: 'succeeded' }))).to.deep.equal([]);
  });

  it('asks why before cancelling or rolling back, and only then', () => {
    const prompts = jobButtons(
      job({ status: 'paused' }),
      parseJobQuery(new URLSearchParams()),
      true,
    ).buttons.map((b) => [b.command, b.prompt !== '']);
    expect(prompts).to.deep.equal([
      ['resume', false],
      ['cancel', true],
      ['rollback', true],
    ]);
  });

  it('keeps the page’s targets query in every button', () => {
    const query = parseJobQuery(new URLSearchParams('state=failed&offset=50'));
    expect(shown(job({ status: 'planned' }), query)).to.deep.equal([
      'Arm primary arm?state=failed&offset=50',
      'Arm live secondary arm?state=failed&offset=50&target_mode=live',
      'Cancel job danger cancel?state=failed&offset=50',
    ]);
  });

  it('shows no buttons to a caller who may not write, but still names the moves', () => {
    const actions = jobButtons(job({ status: 'running' }), parseJobQuery(new URLSearchParams()), false);
    expect(actions.buttons).to.deep.equal([]);
    expect(actions.allowed).to.deep.equal(['pause', 'cancel', 'rollback']);
  });
});

describe("the job page's targets query", () => {
  it('reads a state and an offset, and writes them back without defaults', () => {
    const query = parseJobQuery(new URLSearchParams('state=in_flight&offset=100'));
    expect(query).to.deep.equal({ state: 'in_flight', offset: 100 });
    expect(jobQueryString(query)).to.equal('?state=in_flight&offset=100');
    expect(jobQueryString(query, { state: undefined, offset: 0 })).to.equal('');
    expect(jobQueryString(parseJobQuery(new URLSearchParams()))).to.equal('');
  });

  it('says why a state or offset is not one', () => {
    expect(parseJobQuery(new URLSearchParams('state=lost')).error).to.match(/^state must be one of pending/);
    expect(parseJobQuery(new URLSearchParams('offset=-1')).error).to.equal(
      'offset must be an integer ≥ 0, got "-1"',
    );
    expect(parseJobQuery(new URLSearchParams('offset=1e3')).error).to.match(/offset must be an integer/);
  });
});
