// The jobs pages over real HTTP, against one service with PostgreSQL and simulator agents: a
// rollout that succeeded, one that stays running between its stages, a planned restart, and a
// rollout paused by its gate (its own service, with agents that refuse every config); and what the
// pages say without persistence.

import { expect } from 'chai';
import { contentSecurityPolicy } from '../../../src/web/pages/pageContext.ts';
import type { App } from '../../../src/app.ts';
import { eventually } from '../../persistence/eventually.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, get, isExternal, referencedUrls, type TestAgent } from './pagesHarness.ts';
import { adminToken, arm, page, startJobsService, text, type JobsService } from './jobsHarness.ts';

/** Each stage row of the job page: reached or ahead, its name, and what its bar holds. */
const stageRows = (html: string) =>
  [...html.matchAll(/<li class="stage-row (reached|ahead)">(.*?)<\/li>/g)].map(([, kind, row]) => {
    const part = (name: string) =>
      text(new RegExp(`<span class="${name}">(.*?)</span>(?=<s)`).exec(row ?? '')?.[1] ?? '');
    return `${kind}: ${part('stage-name')} | ${part('stage-count')}`;
  });
const jobLinks = (html: string) =>
  [...html.matchAll(/<a class="agent-name" href="\/jobs\/([^"]+)">/g)].map((m) => m[1]);

describe('jobs pages (GET /jobs, GET /jobs/{id}, PostgreSQL, simulator agents)', function () {
  this.timeout(90_000);
  let service: JobsService;
  let succeeded: string;
  let running: string;
  let planned: string;

  before(async () => {
    service = await startJobsService();
    await service.configWithDraft('otel');
    succeeded = await service.createJob('config_rollout', {
      config: 'otel',
      revision: 2,
      stages: [1, '50%', '100%'],
    });
    await arm(service, succeeded);
    await service.until(succeeded, 'succeeded');
    await service.configWithDraft('edge');
    running = await service.createJob('config_rollout', {
      config: 'edge',
      revision: 2,
      stages: [1, '100%'],
      wait: '10m',
    });
    await arm(service, running);
    // Stage 1's one target applies; the next stage waits ten minutes.
    await eventually(async () => {
      const job = (await service.api('GET', `/api/jobs/${running}`)).json;
      return (job.target_counts as Record<string, number>).succeeded === 1;
    }, 'stage 1 of the running rollout applied');
    planned = await service.createJob('restart', {
      reconnect_timeout: '90s',
      backoff_cap: '10m',
      batch_size: '50%',
    });
  });
  after(() => service.stop());

  describe('the jobs list', () => {
    it('lists the jobs newest first with status, targets and the job queue link, under Jobs in the navigation', async () => {
      const res = await page(service, '/jobs');
      expect(res.status).to.equal(200);
      expect(jobLinks(res.body)).to.deep.equal([planned, running, succeeded]);
      expect(res.body).to.include('<a href="/jobs" aria-current="page">Jobs</a>');
      expect(res.body).to.include('<span class="badge job-planned">Planned</span>');
      expect(res.body).to.include('<span class="badge job-running">Running</span>');
      expect(res.body).to.include('<span class="badge job-succeeded">Succeeded</span>');
      expect(res.body).to.include('<span class="subject">edge #2</span>');
      expect(res.body).to.include('aria-label="6 succeeded"');
      expect(res.body).to.include('aria-label="1 succeeded, 5 pending"');
      expect(res.body).to.include('<div class="faint small">6 succeeded</div>');
      expect(res.body).to.include('<div class="faint small">targets are found when armed</div>');
      expect(res.body).to.include('<a class="icon-button" href="/jobs-ui/"');
    });

    it('keeps one status from the select, in the page and in the polled fragment', async () => {
      const res = await page(service, '/jobs?status=running');
      expect(jobLinks(res.body)).to.deep.equal([running]);
      expect(res.body).to.include('<option value="running" selected>Running</option>');
      expect(res.body).to.include('hx-get="/partials/jobs?status=running" hx-trigger="every 300ms"');
      const fragment = await page(service, '/partials/jobs?status=running');
      expect(fragment.status).to.equal(200);
      expect(fragment.body).to.match(/^<section id="jobs" hx-get="\/partials\/jobs\?status=running"/);
      expect(jobLinks(fragment.body)).to.deep.equal([running]);
      expect(text((await page(service, '/jobs?status=cancelled')).body)).to.include('No cancelled jobs');
    });

    it('answers a status that is not one with 400 and says why', async () => {
      const res = await page(service, '/jobs?status=done');
      expect(res.status).to.equal(400);
      expect(text(res.body)).to.include('Invalid status status must be one of planned, armed, running');
    });
  });

  describe('a running rollout', () => {
    it('shows its status, stage, a bar per stage and its settings in words, and polls', async () => {
      const res = await page(service, `/jobs/${running}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include(
        '<h1>Config rollout</h1><span class="badge job-running">Running</span><span class="sub">Stage 1 of 2</span>',
      );
      expect(res.body).to.include(
        `<section id="job-live" data-job-status="running" hx-get="/partials/jobs/${running}" hx-trigger="every 300ms" hx-swap="outerHTML">`,
      );
      expect(stageRows(res.body)).to.deep.equal([
        'reached: Stage 1 · 1 target | 1 succeeded',
        'ahead: Stage 2 · 100% | 5 pending',
      ]);
      const settings = text(
        res.body.slice(res.body.indexOf('<h2>Settings</h2>'), res.body.indexOf('<h2>Times</h2>')),
      );
      expect(settings).to.include('Config edge Revision #2 from #1, current when armed Stages 1 → 100%');
      expect(settings).to.include('Wait 10m between stages');
      expect(res.body).to.include('<a class="mono" href="/configs/edge">edge</a>');
      expect(res.body).to.include(
        '<a class="mono" href="/?connected=true" title="These agents in the fleet">',
      );
    });

    it('lists its events newest first: who, the move and why', async () => {
      const { body } = await page(service, `/jobs/${running}`);
      const events = body.slice(body.indexOf('<section class="panel" id="events">'));
      const rows = [...events.matchAll(/<tr><td class="nowrap">.*?<\/tr>/g)].map((m) =>
        text(m[0]).replace(/^(just now|\d+s ago) /, ''),
      );
      expect(rows).to.deep.equal([
        'service stage stage 1: 1 more target(s)',
        'service armed → running dispatch_at reached',
        'operator planned → armed 6 target(s), snapshot',
      ]);
    });

    it('pages its targets and keeps them to one state from a tile', async () => {
      const all = await page(service, `/jobs/${running}`);
      expect(all.body).to.include('Showing 1–6 of 6');
      expect(all.body).to.include(
        `<a class="tile tgt-pending" href="/jobs/${running}?state=pending#targets">`,
      );
      const pending = await page(service, `/jobs/${running}?state=pending`);
      expect(pending.body).to.include('Showing 1–5 of 5');
      expect([...pending.body.matchAll(/badge tgt-(\w+)/g)].map((m) => m[1])).to.deep.equal(
        Array(5).fill('pending'),
      );
      expect(pending.body).to.include(`hx-get="/partials/jobs/${running}?state=pending"`);
      const bad = await page(service, `/jobs/${running}?state=lost`);
      expect(bad.status).to.equal(400);
      expect(text(bad.body)).to.include('Invalid query state must be one of pending, in_flight');
    });

    it('serves the fragment the page embeds', async () => {
      const fragment = await page(service, `/partials/jobs/${running}`);
      expect(fragment.status).to.equal(200);
      expect(fragment.body).to.match(/^<section id="job-live" data-job-status="running" hx-get=/);
      expect(fragment.body).to.include('Stage 1 of 2');
    });
  });

  describe('a finished rollout and a planned restart', () => {
    it('shows a succeeded rollout with every stage done, and stops polling', async () => {
      const res = await page(service, `/jobs/${succeeded}`);
      expect(res.body).to.include(
        '<span class="badge job-succeeded">Succeeded</span><span class="sub">Stage 3 of 3</span>',
      );
      expect(res.body).to.include('<section id="job-live" data-job-status="succeeded">');
      expect(res.body).not.to.include('hx-trigger');
      expect(stageRows(res.body)).to.deep.equal([
        'reached: Stage 1 · 1 target | 1 succeeded',
        'reached: Stage 2 · 50% | 2 succeeded',
        'reached: Stage 3 · 100% | 3 succeeded',
      ]);
    });

    it('says a planned restart is not armed, with its settings in words and no targets yet', async () => {
      const res = await page(service, `/jobs/${planned}`);
      expect(res.body).to.include(
        '<span class="badge job-planned">Planned</span><span class="sub">Not armed yet</span>',
      );
      const settings = text(
        res.body.slice(res.body.indexOf('<h2>Settings</h2>'), res.body.indexOf('<h2>Times</h2>')),
      );
      expect(settings).to.include('Reconnect timeout 1m 30s');
      expect(settings).to.include('Batch size 50% of the targets');
      expect(settings).to.include('Backoff cap 10m');
      expect(text(res.body)).to.include('No targets Targets are found when the job is armed.');
      expect(res.body).not.to.include('hx-trigger');
    });

    it('answers an unknown or malformed job id with a 404 page, and its fragment with a 404 fragment', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const res = await page(service, `/jobs/${id}`);
        expect(res.status, id).to.equal(404);
        expect(res.body).to.include('<h1>Job not found</h1>');
        const fragment = await page(service, `/partials/jobs/${id}`);
        expect(fragment.status).to.equal(404);
        expect(fragment.body).to.match(/^<section class="not-found" id="job-live">/);
      }
    });
  });

  describe('a database that does not answer', () => {
    // The jobs table renamed away: every read of the store fails as it does against a database that
    // lost the table or the connection, and renaming it back is the database answering again.
    async function withoutJobsTable(check: () => Promise<void>) {
      const client = await service.db.client();
      try {
        await client.query('ALTER TABLE jobs RENAME TO jobs_away');
        await check();
      } finally {
        await client.query('ALTER TABLE jobs_away RENAME TO jobs');
        await client.end();
      }
    }

    it('answers the job page and its fragment with a 503 that says so, then the job again', async () => {
      await withoutJobsTable(async () => {
        const res = await page(service, `/jobs/${running}`);
        expect(res.status).to.equal(503);
        expect(res.body).to.include('<h1>Job unavailable</h1>');
        expect(text(res.body)).to.include('could not be read from the database');
        const fragment = await page(service, `/partials/jobs/${running}`);
        expect(fragment.status).to.equal(503);
        expect(fragment.body).to.match(/^<section class="not-found" id="job-live">/);
      });
      const back = await page(service, `/jobs/${running}`);
      expect(back.status).to.equal(200);
      expect(back.body).to.include('data-job-status="running"');
    });

    it('keeps the jobs list up with a banner that says the jobs could not be read', async () => {
      await withoutJobsTable(async () => {
        for (const path of ['/jobs', '/partials/jobs']) {
          const res = await page(service, path);
          expect(res.status, path).to.equal(200);
          expect(text(res.body), path).to.include('Jobs unavailable');
        }
      });
      expect(text((await page(service, '/jobs')).body)).not.to.include('Jobs unavailable');
    });
  });

  describe("the agent page's Jobs section", () => {
    it('lists the jobs that touched the agent with its state in each, linking to them', async () => {
      const { json } = await service.api('GET', `/api/jobs/${running}?state=succeeded`);
      const uid = (json.targets as { instance_uid: string }[])[0]!.instance_uid;
      const res = await page(service, `/agents/${uid}`);
      expect(res.status).to.equal(200);
      const section = res.body.slice(res.body.indexOf('id="agent-jobs"'));
      expect(jobLinks(section)).to.deep.equal([running, succeeded]);
      expect(section).to.include('<span class="badge job-running">Running</span>');
      expect(section).to.include('<span class="badge tgt-succeeded">Succeeded</span>');
      const fragment = await page(service, `/partials/agents/${uid}`);
      expect(jobLinks(fragment.body.slice(fragment.body.indexOf('id="agent-jobs"')))).to.have.length(2);
    });

    it('shows the agent pending in a rollout that has not reached it yet', async () => {
      const { json } = await service.api('GET', `/api/jobs/${running}?state=pending`);
      const uid = (json.targets as { instance_uid: string }[])[0]!.instance_uid;
      const section = (await page(service, `/agents/${uid}`)).body.split('id="agent-jobs"')[1] ?? '';
      expect(jobLinks(section)).to.deep.equal([running, succeeded]);
      expect(section).to.include('<span class="badge tgt-pending">Pending</span>');
    });
  });

  it("sends the UI's Content-Security-Policy and references nothing external or inline on every jobs page", async () => {
    for (const path of [
      '/jobs',
      '/partials/jobs',
      `/jobs/${running}`,
      `/partials/jobs/${running}`,
      `/jobs/${succeeded}`,
      `/jobs/${planned}`,
      '/jobs/nope',
    ]) {
      const res = await page(service, path, adminToken);
      expect(res.headers.get('content-security-policy'), path).to.equal(contentSecurityPolicy);
      expect(res.headers.get('cache-control'), path).to.equal('no-store');
      expect(referencedUrls(res.body).filter(isExternal), path).to.deep.equal([]);
      expect(res.body, path).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="|\son[a-z]+="/);
    }
  });
});

describe('a rollout paused by its gate (PostgreSQL, agents that refuse configs)', function () {
  this.timeout(90_000);
  let service: JobsService;
  let paused: string;

  before(async () => {
    // The first half of the agents (by slot) refuse every config they get.
    service = await startJobsService({ fleet: { configFailRate: 0.5 } });
    await service.configWithDraft('gated');
    paused = await service.createJob('config_rollout', {
      config: 'gated',
      revision: 2,
      stages: ['100%'],
      gates: { max_failed: 1 },
    });
    await arm(service, paused);
    await service.until(paused, 'paused');
  });
  after(() => service.stop());

  it('shows the gate that paused it with the agents behind it, linking to their pages', async () => {
    const { json } = await service.api('GET', `/api/jobs/${paused}`);
    const gate = json.gate as { count: number; agents: string[] };
    const res = await page(service, `/jobs/${paused}`);
    expect(res.body).to.include('<span class="badge job-paused">Paused</span>');
    const panel = res.body.slice(res.body.indexOf('<div class="panel panel-body gate tripped">'));
    expect(text(panel)).to.match(
      new RegExp(
        `^Gate that paused it max_failed : ${gate.count} targets failed, more than the 1 allowed\\.`,
      ),
    );
    const failed = (json.target_counts as { failed: number }).failed;
    expect(text(panel), 'what Resume does').to.include(
      `Resume accepts the ${failed} failures so far; the gates then count only new failures.`,
    );
    for (const uid of gate.agents)
      expect(panel).to.include(`<a class="chip" href="/agents/${uid}" title="${uid}">`);
    expect(res.body).to.include('hx-trigger="every 300ms"');
  });
});

describe('jobs pages without persistence (database.host unset)', () => {
  let app: App;
  let agent: TestAgent;
  before(async () => {
    app = await startApp();
    agent = await connectAgent(app, { identifying: { 'service.name': 'solo' } });
  });
  after(async () => {
    await agent.ws.close();
    await app.stop();
  });

  it('says jobs need database.host instead of failing, and does not poll', async () => {
    for (const path of ['/jobs', '/partials/jobs']) {
      const res = await get(`${app.urls.ui}${path}`);
      expect(res.status, path).to.equal(200);
      expect(text(res.body), path).to.include(
        'Jobs need a database Jobs are kept in PostgreSQL: set database.host to record and run restarts and config rollouts.',
      );
      expect(res.body, path).not.to.include('hx-trigger');
      expect(res.body, path).not.to.include('/jobs-ui/');
    }
  });

  it('answers a job page, its fragment and its buttons with 503 and why', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [path, method] of [
      [`/jobs/${id}`, 'GET'],
      [`/partials/jobs/${id}`, 'GET'],
      [`/jobs/${id}/pause`, 'POST'],
    ] as const) {
      const res = await fetch(`${app.urls.ui}${path}`, { method, headers: { 'HX-Request': 'true' } });
      expect(res.status, path).to.equal(503);
      expect(text(await res.text()), path).to.include('Jobs need a database');
    }
  });

  it('leaves the Jobs section out of the agent page', async () => {
    const res = await get(`${app.urls.ui}/agents/${agent.uid}`);
    expect(res.status).to.equal(200);
    expect(res.body).not.to.include('agent-jobs');
  });
});
