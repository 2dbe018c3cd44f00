// A rollout's protection in real headless Chromium (jobsUi.spec.ts's harness: one service with
// PostgreSQL and simulator agents, the first two of which fail every config): a rollout armed with
// the gates the rollout form used to default to (stages 1, 50%, 100%; max_failed 10%) pauses on its
// failing canary, and a rollout whose gates let its failures through waits for a decision, which the
// operator takes on the job page with Promote and a reason. Every page says in words which revision
// is in force for whom. Screenshots: artifacts/rollout-canary-paused.png and
// rollout-promotion-decision.png (the copies in docs/img illustrate docs/jobs.md).

import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { adminToken, arm, startJobsService, type JobsService } from '../web/pages/jobsHarness.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems, type Win } from './browserHarness.ts';

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const waitForText = (page: Page, selector: string, expected: string) =>
  page.waitForFunction(
    ([sel, want]) => (globalThis as unknown as Win).document.querySelector(sel)?.textContent === want,
    [selector, expected] as const,
  );
/** Agents sim-host-0 and sim-host-1 (the fleet's first two) fail every config. */
const failing = 'match=host.name=~"sim-host-[01]"';

describe('a rollout that stops on its canary and waits for a promotion decision, in a real browser', function () {
  this.timeout(120_000);
  let service: JobsService | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let canary: string;
  let held: string;
  const problems: string[] = [];
  const ui = () => service!.app.urls.ui;

  before(async function () {
    requireChromium(this);
    service = await startJobsService({ fleet: { agents: 8, configFailRate: 0.25 } });
    await service.configWithDraft('canary');
    await service.configWithDraft('promo');
    canary = await service.createJob(
      'config_rollout',
      { config: 'canary', revision: 2, stages: [1, '50%', '100%'], gates: { max_failed: '10%' } },
      failing,
    );
    await arm(service, canary);
    await service.until(canary, 'paused');
    held = await service.createJob('config_rollout', {
      config: 'promo',
      revision: 2,
      stages: ['100%'],
      gates: { max_failed: '50%' },
    });
    await arm(service, held);
    await service.until(held, 'awaiting_promotion');
    browser = await launchBrowser();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      extraHTTPHeaders: { Authorization: `Bearer ${adminToken}` },
    });
    page = await context.newPage();
    watchProblems(page, ui, problems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('shows the canary that failed, the gate that paused the job, and who runs which revision', async () => {
    await page.goto(`${ui()}/jobs/${canary}`);
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Paused');
    expect(await page.locator('#job-live .page-head .sub').textContent()).to.equal('Stage 1 of 3');
    expect(await page.locator('.gate p').first().textContent()).to.equal(
      'max_failed: 1 target failed, more than the 0 allowed.',
    );
    expect(await page.locator('.gate p').nth(1).textContent()).to.equal(
      'Resume accepts the 1 failure so far; the gates then count only new failures.',
    );
    expect(await page.locator('#job-live p.in-force').textContent()).to.equal(
      'Revision 2 is in force for the 1 agent this rollout reached; revision 1 stays current for the rest.',
    );
    expect(await texts(page, '.stage-row .stage-count')).to.deep.equal([
      '1 failed',
      'no targets',
      '1 pending',
    ]);
    expect(await texts(page, '.job-actions button')).to.deep.equal(['Resume', 'Cancel job', 'Roll back']);
    expect(await page.locator('#events tbody tr:first-child').textContent()).to.include(
      'max_failed exceeded in the canary stage: 1 > 0',
    );
    await screenshot(page, 'rollout-canary-paused.png');
  });

  it('offers Promote and Roll back for a rollout that ended with failures, with the revision not current', async () => {
    await page.goto(`${ui()}/jobs/${held}`);
    expect(await page.locator('#job-live .page-head .badge').textContent()).to.equal('Awaiting promotion');
    expect(await page.locator('.promotion h2').textContent()).to.equal('Decision needed');
    expect(await page.locator('#job-live p.in-force').textContent()).to.equal(
      'Revision 2 is in force for the 8 agents this rollout reached (2 failed); revision 1 stays current for the rest until the rollout is promoted or rolled back.',
    );
    expect(await texts(page, '.job-actions button')).to.deep.equal(['Cancel job', 'Roll back', 'Promote']);
    expect((await service!.api('GET', '/api/configs/promo')).json).to.include({ current_revision: 1 });
    await screenshot(page, 'rollout-promotion-decision.png');
  });

  it('promotes with the reason typed into the prompt: the revision becomes current for every agent', async () => {
    page.once('dialog', (dialog) => void dialog.accept('the two failing hosts are being rebuilt'));
    await page.click('.job-actions button:text("Promote")');
    await waitForText(page, '#job-live .page-head .badge', 'Succeeded');
    expect(await page.locator('#job-notice .banner').textContent()).to.equal('Promotedby operator');
    expect(await page.locator('#job-live p.in-force').textContent()).to.equal(
      'Revision 2 became current for every agent when the rollout was promoted, although 2 agents failed it.',
    );
    const event = await page.locator('#events tbody tr:first-child').textContent();
    expect(event).to.include('the two failing hosts are being rebuilt');
    expect(event).to.include('operator');
    expect((await service!.api('GET', '/api/configs/promo')).json).to.include({ current_revision: 2 });
  });

  it('says in the job list which revision each rollout put in force for whom', async () => {
    await page.goto(`${ui()}/jobs`);
    expect(await texts(page, '#jobs .in-force')).to.deep.equal([
      'Revision 2 became current for every agent when the rollout was promoted, although 2 agents failed it.',
      'Revision 2 is in force for the 1 agent this rollout reached; revision 1 stays current for the rest.',
    ]);
  });

  it('goes on past the accepted canary on Resume, and pauses again on the next failure', async () => {
    await page.goto(`${ui()}/jobs/${canary}`);
    await page.click('.job-actions button:text("Resume")');
    // Stage 2 adds no target (50 % of 2 is the canary); stage 3's target fails, a new failure.
    await waitForText(page, '#job-live .page-head .sub', 'Stage 3 of 3');
    await waitForText(page, '#job-live .page-head .badge', 'Paused');
    expect(await page.locator('.gate p').first().textContent()).to.equal(
      'max_failed: 1 more target failed since the last resume (which accepted 1), more than the 0 allowed.',
    );
    expect(await page.locator('.gate p').nth(1).textContent()).to.equal(
      'Resume accepts the 2 failures so far; the gates then count only new failures.',
    );
    const events = await texts(page, '#events tbody tr');
    expect(events[0]).to.include('max_failed exceeded: 1 > 0 (new, besides 1 accepted at resume)');
    expect(events.find((e) => e.includes('accepted 1 failed target(s) so far'))).to.include('operator');
  });

  it('ran without Content-Security-Policy violations, script errors or requests to other origins', () => {
    expect(problems.filter((p) => !/^console: htmx:(sendAbort|afterRequest), /.test(p))).to.deep.equal([]);
  });
});
