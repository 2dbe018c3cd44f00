// The config editor in real headless Chromium, against one service with PostgreSQL and simulator
// agents (host.name sim-host-0 … sim-host-5): an operator (an admin API token on every request)
// creates a config and watches the live check count the agents as the selector changes, saves it,
// edits it with the diff shown, saves a draft and rolls it out to a job that finishes, restores an
// old revision after seeing its diff, and loses a race without losing the edit. A viewer sees no
// form; the pages read well in both themes and without JavaScript. Screenshots go to artifacts/
// (config-new.png, config-edit*.png, config-rollout*.png, config-restore*.png, config-conflict.png).

import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { adminToken, startJobsService, viewerToken, type JobsService } from '../web/pages/jobsHarness.ts';
import { expectReadsWell } from './contrast.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems, type Win } from './browserHarness.ts';

/** Waits until the first element matching `selector` reads `expected` (htmx swaps it in). */
const waitForText = (page: Page, selector: string, expected: string) =>
  page.waitForFunction(
    ([sel, want]) => (globalThis as unknown as Win).document.querySelector(sel)?.textContent?.trim() === want,
    [selector, expected] as const,
    { timeout: 20_000 },
  );

/** Waits until the first element matching `selector` holds `expected` in its text. */
const waitForIncluded = (page: Page, selector: string, expected: string) =>
  page.waitForFunction(
    ([sel, want]) =>
      ((globalThis as unknown as Win).document.querySelector(sel)?.textContent ?? '').includes(want),
    [selector, expected] as const,
    { timeout: 20_000 },
  );

/** Waits until nothing matches `selector` (a swap took it away). */
const waitForGone = (page: Page, selector: string) =>
  page.waitForFunction(
    (sel) => (globalThis as unknown as Win).document.querySelector(sel) === null,
    selector,
    {
      timeout: 20_000,
    },
  );

describe('config editor in a real browser', function () {
  this.timeout(180_000);
  let service: JobsService | undefined;
  let browser: Browser | undefined;
  let admin: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const ui = () => service!.app.urls.ui;
  const config = async (name: string) => (await service!.api('GET', `/api/configs/${name}`)).json;
  const targeted = '#config-check [data-preview="targeted"]';

  before(async function () {
    requireChromium(this);
    service = await startJobsService();
    browser = await launchBrowser();
    admin = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { Authorization: `Bearer ${adminToken}` },
    });
    page = await admin.newPage();
    watchProblems(page, ui, problems);
    // Save asks before it sends to every targeted agent at once (uiTruth.spec.ts reads the question).
    page.on('dialog', (dialog) => void dialog.accept());
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('creates a config, the preview counting the agents as the selector changes', async () => {
    await page.goto(`${ui()}/configs`);
    await Promise.all([page.waitForURL(/\/new-config$/), page.click('a.button:text("New config")')]);
    await page.fill('input[name="name"]', 'edge');
    await page.fill('input[name="selector"]', 'host.name="sim-host-0"');
    await waitForText(page, targeted, '1');
    await page.fill('input[name="selector"]', 'host.name=~"sim-host-[012]"');
    await waitForText(page, targeted, '3');
    await page.fill('textarea[name="body"]', 'receivers:\n  otlp:\n protocols: {}\n');
    await waitForIncluded(page, '#config-check .banner.error', 'Line 3');
    expect(await page.locator('[data-gutter]').textContent()).to.equal('1\n2\n3\n4');
    await page.click('#config-check [data-goto-line]');
    await page.fill('textarea[name="body"]', 'receivers:\n  otlp:\n    protocols: {}\n');
    await waitForGone(page, '#config-check .banner.error');
    expect(await page.locator('#config-check .diff-summary').textContent()).to.equal(
      'An empty config → this edit: +3 −0 lines',
    );
    await screenshot(page, 'config-new.png');
    await Promise.all([page.waitForURL(/\/configs\/edge$/), page.click('button[data-sends]')]);
    expect(await page.locator('#config-detail .page-head .sub').textContent()).to.include(
      'Revision 1 in force',
    );
    expect(await config('edge')).to.include({ current_revision: 1, updated_by: 'operator' });
  });

  it('edits the config with the diff against the revision in force shown before saving', async () => {
    await Promise.all([page.waitForURL(/\/configs\/edge\/edit$/), page.click('a.button:text("Edit")')]);
    await page.fill('textarea[name="body"]', 'receivers:\n  otlp:\n    protocols: { grpc: {} }\n');
    await waitForIncluded(
      page,
      '#config-check .diff-summary',
      'Revision 1 in force → this edit: +1 −1 lines',
    );
    expect(await page.locator('#config-check tr.diff-add .diff-text').textContent()).to.include('grpc');
    await screenshot(page, 'config-edit.png');
    await Promise.all([page.waitForURL(/\/configs\/edge$/), page.click('button[data-sends]')]);
    expect(await config('edge')).to.include({ current_revision: 2 });
  });

  it('saves a draft and rolls it out in two stages to a job page that finishes', async () => {
    await page.goto(`${ui()}/configs/edge/edit`);
    await page.fill('textarea[name="body"]', 'receivers:\n  otlp:\n    protocols: { http: {} }\n');
    await waitForIncluded(page, '#config-check .diff-summary', '+1 −1');
    await Promise.all([page.waitForURL(/\/configs\/edge$/), page.click('button:text("Save as draft")')]);
    expect(await page.locator('#config-detail .tag.draft').first().textContent()).to.equal('Draft 3');
    await Promise.all([
      page.waitForURL(/\/configs\/edge\/rollout$/),
      page.click('a.button:text("Roll out…")'),
    ]);
    expect(await page.locator('.diff-summary').textContent()).to.include('Revision 2 in force → draft 3');
    await page.fill('input[name="stages"]', '1, 100%');
    await page.fill('input[name="wait"]', '0s');
    await screenshot(page, 'config-rollout.png');
    await Promise.all([page.waitForURL(/\/jobs\/[0-9a-f-]+$/), page.click('button:text("Roll out")')]);
    expect(await page.locator('#job-live h1').textContent()).to.equal('Config rollout');
    await waitForText(page, '#job-live .page-head .badge', 'Succeeded');
    expect(await config('edge')).to.include({ current_revision: 3, draft_revision: null });
  });

  it('restores an old revision after showing its diff', async () => {
    await page.goto(`${ui()}/configs/edge`);
    await Promise.all([
      page.waitForURL(/\/revisions\/1\/restore$/),
      page.click('a[href="/configs/edge/revisions/1/restore"]'),
    ]);
    expect(await page.locator('.diff-summary').textContent()).to.include('Revision 3 in force → revision 1');
    expect(await page.locator('table.diff tr.diff-del').textContent()).to.include('protocols: { http: {} }');
    await screenshot(page, 'config-restore.png');
    await Promise.all([page.waitForURL(/\/configs\/edge$/), page.click('button:text("Restore as current")')]);
    expect(await page.locator('#config-detail tr.chosen').first().textContent()).to.include(
      'restored from #1',
    );
    expect(await config('edge')).to.include({ current_revision: 4 });
  });

  it('loses a race to another save, says what changed, keeps the edit and saves it on a second try', async () => {
    await page.goto(`${ui()}/configs/edge/edit`);
    const mine = 'receivers:\n  otlp:\n    protocols: { grpc: {}, http: {} }\n';
    await page.fill('textarea[name="body"]', mine);
    const theirs = await service!.api('PUT', '/api/configs/edge', {
      revision: 4,
      selector: 'host.name="sim-host-5"',
    });
    expect(theirs.status).to.equal(200);
    await page.click('button[data-sends]');
    await waitForIncluded(page, '#editor-notice', 'Revision #5 was saved by operator');
    expect(await page.locator('#editor-notice table.settings-diff').textContent()).to.include(
      'host.name="sim-host-5"',
    );
    expect(await page.inputValue('textarea[name="body"]')).to.equal(mine);
    expect(await page.inputValue('#edit-base')).to.equal('5');
    await waitForIncluded(
      page,
      '#config-check .diff-summary',
      'Revision 5 in force → this edit: +1 −1 lines',
    );
    await screenshot(page, 'config-conflict.png');
    // The browser reports the 409 itself; nothing else may be.
    const refusal = problems.findIndex((p) => p.includes('status of 409'));
    expect(refusal, problems.join('\n')).to.be.at.least(0);
    problems.splice(refusal, 1);
    await Promise.all([page.waitForURL(/\/configs\/edge$/), page.click('button[data-sends]')]);
    const saved = await service!.api('GET', '/api/configs/edge/revisions/6');
    expect(saved.json).to.include({ body: mine, selector: 'host.name=~"sim-host-[012]"' });
  });

  it('shows a viewer no form anywhere', async () => {
    const viewer = await browser!.newContext({
      extraHTTPHeaders: { Authorization: `Bearer ${viewerToken}` },
    });
    try {
      const seen = await viewer.newPage();
      for (const path of [
        '/configs',
        '/configs/edge',
        '/new-config',
        '/configs/edge/edit',
        '/configs/edge/revisions/1/restore',
      ]) {
        await seen.goto(`${ui()}${path}`);
        expect(
          await seen.locator('form:not(.diff-form), a[href$="/edit"], a[href="/new-config"]').count(),
          path,
        ).to.equal(0);
      }
      expect(await seen.locator('.banner').textContent()).to.include(
        'Editing configs needs an admin identity',
      );
    } finally {
      await viewer.close();
    }
  });

  it('reads well without JavaScript', async () => {
    const plain = await browser!.newContext({
      javaScriptEnabled: false,
      extraHTTPHeaders: { Authorization: `Bearer ${adminToken}` },
    });
    try {
      const seen = await plain.newPage();
      await seen.goto(`${ui()}/configs/edge/edit`);
      expect(await seen.locator('noscript').textContent()).to.include('JavaScript needed to save');
      expect(await seen.inputValue('textarea[name="body"]')).to.include('grpc: {}, http: {}');
      expect(await seen.locator('[data-gutter]').textContent()).to.equal('1\n2\n3\n4');
      expect(await seen.locator(targeted).textContent()).to.equal('3');
    } finally {
      await plain.close();
    }
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`reads well in the ${scheme} theme`, async () => {
      await service!.api('PUT', '/api/configs/edge', { revision: 6, body: 'a: 1\n', draft: true });
      const suffix = scheme === 'dark' ? '-dark' : '';
      await expectReadsWell(
        page,
        scheme,
        [
          [`${ui()}/configs/edge/edit`, `config-edit${suffix}.png`],
          [`${ui()}/configs/edge/rollout`, `config-rollout${suffix}.png`],
          [`${ui()}/configs/edge/revisions/2/restore`, `config-restore${suffix}.png`],
        ],
        screenshot,
      );
    });

  it('raised no CSP violation, script error or request to another origin', () => {
    expect(problems).to.deep.equal([]);
  });
});
