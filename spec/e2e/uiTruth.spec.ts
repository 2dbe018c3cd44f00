// Issue 30 in real headless Chromium, against one service with PostgreSQL and 12 simulator agents:
// the fleet box takes a list of matchers and answers what the API answers; the config editor says
// how many agents Save sends to and asks, offers a staged rollout beside it, and warns before
// unsaved edits are left; the rollout form shows its numbers before arming; each corrected sentence
// (drafts, compare, revision roles, the 24 h tab, texts by role, a new form) is read on the page;
// /jobs-ui carries the UI's headers, loads nothing from outside and links home. Screenshots of the
// rollout form go to docs/img (rollout-form-*.png) and artifacts/.

import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  adminToken,
  arm,
  startJobsService,
  viewerToken,
  type JobsService,
} from '../web/pages/jobsHarness.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems, type Win } from './browserHarness.ts';

const agents = 12;
const docsImg = new URL('../../docs/img/', import.meta.url);

/** Waits until the first element matching `selector` holds `expected` in its text. */
const waitForIncluded = (page: Page, selector: string, expected: string) =>
  page.waitForFunction(
    ([sel, want]) =>
      ((globalThis as unknown as Win).document.querySelector(sel)?.textContent ?? '').includes(want),
    [selector, expected] as const,
    { timeout: 20_000 },
  );

const shownTotal = async (page: Page): Promise<number> => {
  const foot = (await page.locator('#fleet-table .table-foot span').first().textContent()) ?? '';
  const m = /of (\d+)/.exec(foot);
  return m === null ? 0 : Number(m[1]);
};

describe('issue 30: every box one language, numbers before consequences, every sentence true', function () {
  this.timeout(240_000);
  let service: JobsService | undefined;
  let browser: Browser | undefined;
  let admin: BrowserContext;
  let viewer: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const ui = () => service!.app.urls.ui;
  const apiTotal = async (query: string) =>
    (await service!.api('GET', `/api/agents${query}`)).json.total as number;

  before(async function () {
    requireChromium(this);
    service = await startJobsService({ fleet: { agents } });
    await service.configWithDraft('otel');
    browser = await launchBrowser();
    admin = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { Authorization: `Bearer ${adminToken}` },
    });
    viewer = await browser.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${viewerToken}` } });
    page = await admin.newPage();
    watchProblems(page, ui, problems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'passed') expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('reads two matchers typed in the fleet box as the intersection the API answers', async () => {
    await page.goto(`${ui()}/`);
    expect(await page.getAttribute('input[data-matcher]', 'placeholder')).to.equal(
      'key=value, key=~"regex", healthy=false',
    );
    // The simulator's agent 0 is linux on arm64 (tools/simulate/descriptions.ts).
    const list = 'os.type=linux, host.arch=arm64';
    await page.fill('input[data-matcher]', list);
    await Promise.all([page.waitForURL(/match=/), page.press('input[data-matcher]', 'Enter')]);
    const expected = await apiTotal('?match=os.type%3Dlinux&match=host.arch%3Darm64');
    expect(expected).to.be.above(0).and.below(agents);
    expect(await shownTotal(page)).to.equal(expected);
    expect(await page.locator('.active-matchers .chip span:first-child').allTextContents()).to.deep.equal([
      'os.type=linux',
      'host.arch=arm64',
    ]);
  });

  it('parses a quoted regex then a status field, and points at the character of an error', async () => {
    await page.goto(`${ui()}/`);
    await page.fill('input[data-matcher]', 'service.name=~"check.*|pay.*", healthy=true');
    await Promise.all([page.waitForURL(/match=/), page.press('input[data-matcher]', 'Enter')]);
    expect(await page.locator('#fleet-table .banner.error').count()).to.equal(0);
    const expected = await apiTotal(
      `?match=${encodeURIComponent('service.name=~"check.*|pay.*"')}&healthy=true`,
    );
    expect(expected).to.be.above(0);
    expect(await shownTotal(page)).to.equal(expected);

    await page.goto(`${ui()}/`);
    await page.fill('input[data-matcher]', 'os.type=linux, healthy=maybe');
    await Promise.all([page.waitForURL(/match=/), page.press('input[data-matcher]', 'Enter')]);
    expect(await page.locator('#fleet-table .banner.error span').first().textContent()).to.equal(
      'healthy must be true or false, got "maybe" (at character 24)',
    );
    expect(await page.locator('#fleet-table [data-error-point] mark').textContent()).to.equal('m');
    // The browser and htmx's polls report the page's own 400; nothing else may be. Leave the page
    // first, so that no poll reports it after the count.
    await page.goto(`${ui()}/`);
    problems.splice(
      0,
      problems.length,
      ...problems.filter((p) => !p.includes('status of 400') && !p.includes('Error Code 400')),
    );
  });

  it('opens a new config with no error, completes selector keys, and says what Save sends', async () => {
    await page.goto(`${ui()}/new-config`);
    expect(await page.locator('#config-check .banner.error').count()).to.equal(0);
    await page.fill('input[name="selector"]', 'os.type=linux, service.n');
    await page.waitForFunction(
      () =>
        [...(globalThis as unknown as Win).document.querySelectorAll('#selector-options option')].some(
          (o) => o.value === 'os.type=linux, service.name=',
        ),
      undefined,
      { timeout: 20_000 },
    );
    await page.fill('input[name="name"]', 'canary');
    await page.fill('input[name="selector"]', 'service.version=~".+"');
    await page.fill('textarea[name="body"]', 'a: 1\n');
    await waitForIncluded(page, '#config-check [data-sends]', `Save: send to ${agents} agents now`);
    expect(await page.getAttribute('[data-staged]', 'class')).to.equal('button');
    expect(await page.getAttribute('[data-sends]', 'class')).to.equal('button');

    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.dismiss();
      }),
    );
    await page.click('[data-sends]');
    expect(await asked).to.equal(
      `Save sends this config to ${agents} agents at once, with no stages and no gates. Save now?`,
    );
    expect((await service!.api('GET', '/api/configs/canary')).status).to.equal(404);
  });

  it('warns before leaving unsaved edits', async () => {
    const warned = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.dismiss();
      }),
    );
    await page.click('a.button:text("Cancel")');
    expect(await warned).to.equal('beforeunload');
    expect(page.url()).to.match(/\/new-config$/);
  });

  it('keeps a staged rollout as a draft and shows the rollout numbers before arming', async () => {
    await Promise.all([page.waitForURL(/\/configs\/canary\/rollout$/), page.click('[data-staged]')]);
    expect(await page.locator('.banner.error').count()).to.equal(0);
    expect(await page.locator('[data-rollout-preview="targets"]').textContent()).to.equal(String(agents));
    expect(await page.locator('[data-stage-size]').allTextContents()).to.deep.equal([
      '1 agent',
      '5 agents',
      '6 agents',
    ]);
    expect(await page.locator('[data-stage-gates]').allTextContents()).to.deep.equal([
      '1 failed of 1 (max 0)',
      '1 failed of 6 (max 0)',
      '1 failed of 12 (max 0)',
    ]);
    for (const theme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: theme as 'light' | 'dark' });
      await page
        .locator('#rollout-form')
        .screenshot({ path: new URL(`rollout-form-${theme}.png`, docsImg).pathname });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.fill('input[name="max_failed"]', '10%');
    await page.fill('input[name="stages"]', '2, 100%');
    await waitForIncluded(page, '[data-stage-gates]', '1 failed of 2 (max 0)');
    expect(await page.locator('[data-stage-size]').allTextContents()).to.deep.equal([
      '2 agents',
      '10 agents',
    ]);
    // The canary stage pauses on its first failure whatever max_failed says (docs/jobs.md "Gates").
    expect(await page.locator('[data-stage-gates]').allTextContents()).to.deep.equal([
      '1 failed of 2 (max 0)',
      '2 failed of 12 (max 10%)',
    ]);
    await screenshot(page, 'rollout-form.png');
    // The rollout's filter is the fleet box's language too: its targets are the API's intersection.
    await page.fill('input[name="filter"]', 'connected=true, host.arch=arm64');
    const arm64 = await apiTotal('?connected=true&match=host.arch%3Darm64');
    expect(arm64).to.be.above(0).and.below(agents);
    await page.waitForFunction(
      (want) =>
        (globalThis as unknown as Win).document.querySelector('[data-rollout-preview="targets"]')
          ?.textContent === want,
      String(arm64),
      { timeout: 20_000 },
    );
  });

  it("says on a draft's page that it is not in force and what it would target", async () => {
    await page.goto(`${ui()}/configs/canary`);
    const note = (await page.locator('[data-draft-note]').textContent())?.replace(/\s+/g, ' ');
    expect(note).to.equal(
      `Draft #1 is not in forceIt is sent to no agent until it is rolled out or saved again. In force now, it would target ${agents} agents. No revision is in force, so the agents below are none.`,
    );
  });

  it('compares the revision in force with the newer draft, older → newer', async () => {
    await page.goto(`${ui()}/configs/otel`);
    expect(await page.locator('select[name="from"] option:checked').textContent()).to.equal('#1 (current)');
    expect(await page.locator('select[name="to"] option:checked').textContent()).to.equal('#2 (draft)');
  });

  it('heads the editor diff with the role a revision has now, not the one it was saved with', async () => {
    const job = await service!.createJob('config_rollout', { config: 'otel', revision: 2, stages: ['100%'] });
    await arm(service!, job);
    await service!.until(job, 'succeeded');
    await page.goto(`${ui()}/configs/otel/edit`);
    expect(await page.locator('#config-check .diff-summary').textContent()).to.include(
      'Revision 2 in force → this edit',
    );
    await page.goto(`${ui()}/configs/otel`);
    expect(await page.locator('select[name="to"] option:checked').textContent()).to.equal('#2 (current)');
    // Saved as a draft, rolled out, then passed over: revision 2 is no draft now.
    const saved = await service!.api('PUT', '/api/configs/otel', { revision: 2, body: 'a: 3\n' });
    expect(saved.status).to.equal(200);
    await page.goto(`${ui()}/configs/otel`);
    const row = page.locator('#config-detail tr', { has: page.locator('td.mono:text-is("#2")') });
    expect(await row.locator('.tag').allTextContents()).to.deep.equal([]);
    expect(await page.locator('select[name="from"] option[value="2"]').textContent()).to.equal('#2');
  });

  it("writes texts for the reader's role", async () => {
    await page.goto(`${ui()}/configs`);
    expect(await page.locator('#configs [data-role-text]').first().textContent()).to.equal(
      'Write configs here with New config, or through the API (/api/configs).',
    );
    await page.goto(`${ui()}/jobs`);
    expect(await page.locator('#jobs [data-role-text]').first().textContent()).to.equal(
      'Roll out a config from its page (Roll out…), or record a job with POST /api/jobs and arm it on its page.',
    );
    const reader = await viewer.newPage();
    try {
      await reader.goto(`${ui()}/configs`);
      expect(await reader.locator('#configs [data-role-text]').first().textContent()).to.equal(
        'Admins write configs (New config, or the API /api/configs); you can read them.',
      );
      await reader.goto(`${ui()}/jobs`);
      expect(await reader.locator('#jobs [data-role-text]').first().textContent()).to.equal(
        "Admins record jobs: config rollouts from a config's page, or POST /api/jobs.",
      );
    } finally {
      await reader.close();
    }
  });

  it('says how much history the 24 h tab holds, with whole latest counts in its legends', async () => {
    await page.goto(`${ui()}/status?window=24h`);
    expect(await page.locator('[data-history-coverage]').textContent()).to.match(
      /^(No history yet of the last 24 h\.|History of \d+ (s|min) of the last 24 h: this replica started then\.)$/,
    );
    for (const latest of await page.locator('#chart-fleet .latest').allTextContents())
      expect(latest).to.match(/^(\d+|—)$/);
  });

  it('serves /jobs-ui with the UI headers, nothing from outside, and a link home', async () => {
    const response = await page.goto(`${ui()}/jobs-ui/`);
    const headers = response!.headers();
    expect(headers['content-security-policy']).to.match(/^default-src 'self'; script-src 'self'/);
    expect(headers['x-content-type-options']).to.equal('nosniff');
    expect(await page.content()).not.to.match(/fonts\.googleapis|fonts\.gstatic/);
    await page.waitForLoadState('networkidle');
    await Promise.all([page.waitForURL(`${ui()}/`), page.click('a[data-fleet-home]')]);
  });
});
