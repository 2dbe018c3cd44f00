// The jobs pages in real headless Chromium, against one service with PostgreSQL and simulator
// agents: an operator (an admin API token on every request) goes from the navigation to the jobs,
// filters them, follows a running rollout, pauses and resumes it from its buttons, watches it move
// when someone else acts through the API, cancels it with a reason, sees a stale button refused with
// the reason, and opens an agent's jobs; in the light and the dark theme. Screenshots go to
// artifacts/ (jobs*.png, job*.png, agent-jobs.png).

import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { adminToken, arm, startJobsService, type JobsService } from '../web/pages/jobsHarness.ts';
import { expectReadsWell } from './contrast.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems, type Win } from './browserHarness.ts';

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

/** Waits until the first element matching `selector` reads `expected` (polling swaps it in). */
const waitForText = (page: Page, selector: string, expected: string) =>
  page.waitForFunction(
    ([sel, want]) => (globalThis as unknown as Win).document.querySelector(sel)?.textContent === want,
    [selector, expected] as const,
    { timeout: 20_000 },
  );

describe('jobs pages in a real browser', function () {
  this.timeout(120_000);
  let service: JobsService | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let running: string;
  let stale: string;
  const problems: string[] = [];
  const ui = () => service!.app.urls.ui;

  before(async function () {
    requireChromium(this);
    service = await startJobsService();
    await service.configWithDraft('otel');
    const done = await service.createJob('config_rollout', {
      config: 'otel',
      revision: 2,
      stages: [1, '50%', '100%'],
    });
    await arm(service, done);
    await service.until(done, 'succeeded');
    await service.configWithDraft('edge');
    running = await service.createJob('config_rollout', {
      config: 'edge',
      revision: 2,
      stages: [1, '50%', '100%'],
      wait: '10m',
      gates: { max_failed: '10%' },
    });
    await arm(service, running);
    await service.until(running, 'running');
    stale = await service.createJob('restart', { reconnect_timeout: '1m', backoff_cap: 2 });
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 760 },
      extraHTTPHeaders: { Authorization: `Bearer ${adminToken}` },
    });
    page = await context.newPage();
    watchProblems(page, ui, problems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('opens the jobs from the navigation, newest first, with their status and targets', async () => {
    await page.goto(`${ui()}/`);
    await Promise.all([page.waitForURL(/\/jobs$/), page.click('nav.nav a:text("Jobs")')]);
    expect(await texts(page, '#jobs .badge')).to.deep.equal(['Planned', 'Running', 'Succeeded']);
    expect(await texts(page, '#jobs .subject')).to.deep.equal(['connected=true', 'edge #2', 'otel #2']);
    expect(await page.locator('a.icon-button:text("Job queue")').getAttribute('href')).to.equal('/jobs-ui/');
    await screenshot(page, 'jobs.png');
  });

  it('keeps one status from the select', async () => {
    await Promise.all([
      page.waitForURL(/status=running/),
      page.selectOption('select[name="status"]', 'running'),
    ]);
    expect(await texts(page, '#jobs .badge')).to.deep.equal(['Running']);
  });

  it('follows a running rollout to its page: its stages, settings and events', async () => {
    await Promise.all([page.waitForURL(new RegExp(`/jobs/${running}$`)), page.click('#jobs a.agent-name')]);
    expect(await page.locator('#job-live h1').textContent()).to.equal('Config rollout');
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Running');
    await waitForText(page, '.stage-row:first-child .stage-count', '1 succeeded');
    expect(await texts(page, '.stage-row .stage-name')).to.deep.equal([
      'Stage 1 · 1 target',
      'Stage 2 · 50%',
      'Stage 3 · 100%',
    ]);
    expect(await page.locator('dd a[href="/configs/edge"]').textContent()).to.equal('edge');
    expect(await texts(page, '.job-actions button')).to.deep.equal(['Pause', 'Cancel job', 'Roll back']);
    await screenshot(page, 'job.png');
  });

  it('pauses and resumes the rollout from its buttons, without a reload', async () => {
    await page.click('.job-actions button:text("Pause")');
    await waitForText(page, '#job-live .page-head .badge', 'Paused');
    expect(await page.locator('#job-notice .banner').textContent()).to.equal('Pausedby operator');
    await page.click('.job-actions button:text("Resume")');
    await waitForText(page, '#job-live .page-head .badge', 'Running');
    expect(await page.locator('#job-notice .banner').textContent()).to.equal('Resumedby operator');
  });

  it("keeps a button's answer when a poll sent before the click would come back after it", async () => {
    // Hold the next poll of the job until the click has been answered, then let it go.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const pollUrl = `**/partials/jobs/${running}`;
    const seen = problems.length;
    await page.route(pollUrl, async (route) => {
      await released;
      await route.continue().catch(() => undefined);
    });
    try {
      await page.waitForRequest((r) => r.url().endsWith(`/partials/jobs/${running}`));
      await page.click('.job-actions button:text("Pause")');
      await waitForText(page, '#job-live .page-head .badge', 'Paused');
    } finally {
      release();
      await page.unroute(pollUrl);
    }
    // htmx says on the console that it aborted the held poll: expected here, and nowhere else.
    const during = problems.splice(seen);
    expect(
      during.some((p) => p.includes('htmx:sendAbort')),
      'the click aborted the held poll',
    ).to.equal(true);
    problems.push(...during.filter((p) => !/htmx:(sendAbort|afterRequest)/.test(p)));
    // Two more polls swap in: the page still shows the pause and the notice written for it.
    for (let i = 0; i < 2; i++)
      await page.waitForResponse((r) => r.url().endsWith(`/partials/jobs/${running}`) && r.status() === 200);
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Paused');
    expect(await page.locator('#job-notice .banner').textContent()).to.equal('Pausedby operator');
    await page.click('.job-actions button:text("Resume")');
    await waitForText(page, '#job-live .page-head .badge', 'Running');
  });

  it('shows what someone else does through the API while it polls, and drops the outdated notice', async () => {
    const paused = await service!.api('POST', `/api/jobs/${running}/pause`, { reason: 'change freeze' });
    expect(paused.status).to.equal(200);
    await waitForText(page, '#job-live .page-head .badge', 'Paused');
    expect(await page.locator('#events tbody tr:first-child').textContent()).to.include('change freeze');
    expect(await page.locator('#job-notice').textContent(), 'the Resumed notice is outdated').to.equal('');
    await screenshot(page, 'job-paused.png');
  });

  it('cancels the rollout with the reason typed into the prompt, and stops polling', async () => {
    page.once('dialog', (dialog) => void dialog.accept('wrong revision'));
    await page.click('.job-actions button:text("Cancel job")');
    await waitForText(page, '#job-live .page-head .badge', 'Cancelled');
    expect(await page.locator('#events tbody tr:first-child').textContent()).to.include('wrong revision');
    expect(await page.locator('#job-live').getAttribute('hx-trigger')).to.equal(null);
    expect(await texts(page, '.stage-row .stage-count')).to.deep.equal([
      '1 succeeded',
      '2 cancelled',
      '3 cancelled',
    ]);
  });

  it('shows why a button the job no longer allows is refused', async () => {
    await page.goto(`${ui()}/jobs/${stale}`);
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Planned');
    await service!.api('POST', `/api/jobs/${stale}/cancel`, {});
    await page.click('.job-actions button:text-is("Arm")');
    await waitForText(page, '#job-notice .banner strong', 'Refused');
    expect(await page.locator('#job-notice .banner').textContent()).to.include('is cancelled: it cannot arm');
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Cancelled');
    await screenshot(page, 'job-refused.png');
    // The browser reports the 409 itself; nothing else may be.
    const refusal = problems.findIndex((p) => p.includes('409'));
    expect(refusal).to.be.greaterThan(-1);
    problems.splice(refusal, 1);
  });

  it("opens a target's agent page and finds the jobs that touched it", async () => {
    await page.goto(`${ui()}/jobs/${running}?state=succeeded`);
    await Promise.all([page.waitForURL(/\/agents\//), page.click('#targets a.agent-name')]);
    expect(await texts(page, '#agent-jobs .agent-name')).to.deep.equal(['Config rollout', 'Config rollout']);
    expect(await texts(page, '#agent-jobs td:nth-child(3) .badge')).to.deep.equal(['Succeeded', 'Succeeded']);
    await screenshot(page, 'agent-jobs.png');
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`reads well in the ${scheme} theme: every text at least 4.5:1 against its background`, () =>
      expectReadsWell(
        page,
        scheme,
        [
          [`${ui()}/jobs`, `jobs-${scheme}.png`],
          [`${ui()}/jobs/${running}`, `job-${scheme}.png`],
        ],
        screenshot,
      ));
  }

  it('ran without Content-Security-Policy violations, script errors or requests to other origins', () => {
    // A click aborts a poll in flight (hx-sync), which htmx logs on the console: intended, not a fault.
    expect(problems.filter((p) => !/^console: htmx:(sendAbort|afterRequest), /.test(p))).to.deep.equal([]);
  });
});
