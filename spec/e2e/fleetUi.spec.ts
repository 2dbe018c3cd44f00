// End to end in real headless Chromium (Debian's `chromium`, driven by playwright-core): the service
// runs in-process, real agents connect over WebSocket, and the browser uses the pages as an operator
// would. Screenshots of each page go to artifacts/ (gitignored). Without Chromium the suite is skipped
// with the reason, except under CI=true, where a missing browser fails it.

import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { startApp } from '../support/startApp.ts';
import { connectAgent, type TestAgent } from '../web/pages/pagesHarness.ts';
import { contrastOf } from './contrast.ts';
import { artifacts, launchBrowser, requireChromium, watchProblems, type Win } from './browserHarness.ts';

const ReportsOwnMetrics = 0x40;
const names = (page: Page) => page.locator('#fleet-table .agent-name').allTextContents();

/** Waits until the fleet table (refreshed by polling) lists exactly `expected`, in any order. */
async function waitForNames(page: Page, expected: string[]): Promise<void> {
  await page.waitForFunction(
    (want) => {
      const got = [...(globalThis as unknown as Win).document.querySelectorAll('#fleet-table .agent-name')]
        .map((a) => a.textContent)
        .sort();
      return JSON.stringify(got) === JSON.stringify([...want].sort());
    },
    expected,
    { timeout: 20_000 },
  );
}

describe('web UI in a real browser', function () {
  this.timeout(120_000);
  let app: App | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const agents: TestAgent[] = [];
  const problems: string[] = [];

  before(async function () {
    requireChromium(this);
    app = await startApp({
      config: {
        ui: { poll_interval: '300ms' },
        own_telemetry: [{ selector: 'env=prod', metrics: { endpoint: 'https://otlp.example/v1/metrics' } }],
      },
    });
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'alpha', 'service.version': '1.2.0' },
        nonIdentifying: { env: 'prod', 'host.name': 'node-1' },
        healthy: true,
        fields: { capabilities: 0x1 | ReportsOwnMetrics },
      }),
    );
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'bravo', 'service.version': '1.3.0' },
        nonIdentifying: { env: 'dev', 'host.name': 'node-2' },
        healthy: false,
      }),
    );
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'charlie' },
        nonIdentifying: { env: 'prod', 'host.name': 'node-3' },
      }),
    );
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    watchProblems(page, () => app!.urls.ui, problems);
  });

  after(async () => {
    await browser?.close();
    for (const a of agents) await a.ws.close();
    await app?.stop();
  });

  it('lists the connected agents on the fleet page', async () => {
    await page.goto(`${app!.urls.ui}/`);
    expect((await names(page)).sort()).to.deep.equal(['alpha', 'bravo', 'charlie']);
    expect(await page.locator('.table-foot').textContent()).to.include('Showing 1–3 of 3');
    // htmx was told (meta htmx-config) not to inject its indicator <style>, which the CSP would block.
    expect(
      await page.evaluate(
        () => [...(globalThis as unknown as Win).document.querySelectorAll('style')].length,
      ),
    ).to.equal(0);
    await page.screenshot({ path: new URL('fleet.png', artifacts).pathname, fullPage: true });
  });

  it('completes attribute keys and then values in the matcher input', async () => {
    const options = () =>
      page
        .locator('#matcher-options option')
        .evaluateAll((els) => els.map((e) => (e as { value: string }).value));
    await page.fill('input[data-matcher]', 'en');
    await page.waitForFunction(
      () =>
        [...(globalThis as unknown as Win).document.querySelectorAll('#matcher-options option')].length > 0,
    );
    expect(await options()).to.include('env=');
    await page.fill('input[data-matcher]', 'env=p');
    await page.waitForFunction(() =>
      [...(globalThis as unknown as Win).document.querySelectorAll('#matcher-options option')].some(
        (o) => o.value === 'env=prod',
      ),
    );
    expect(await options()).to.deep.equal(['env=prod']);
  });

  it('applies a matcher filter and keeps it while the table polls for changes', async () => {
    await page.fill('input[data-matcher]', 'env=prod');
    await Promise.all([page.waitForURL(/match=env%3Dprod/), page.press('input[data-matcher]', 'Enter')]);
    expect(page.url()).not.to.match(/healthy=/);
    expect((await names(page)).sort()).to.deep.equal(['alpha', 'charlie']);
    agents.push(
      await connectAgent(app!, {
        identifying: { 'service.name': 'delta' },
        nonIdentifying: { env: 'prod' },
        healthy: true,
      }),
    );
    agents.push(
      await connectAgent(app!, {
        identifying: { 'service.name': 'echo' },
        nonIdentifying: { env: 'dev' },
        healthy: true,
      }),
    );
    await waitForNames(page, ['alpha', 'charlie', 'delta']);
    await page.screenshot({ path: new URL('fleet-filtered.png', artifacts).pathname, fullPage: true });
  });

  it('changes the table from the health select and from a sortable header', async () => {
    await Promise.all([page.waitForURL(/healthy=true/), page.selectOption('select[name="healthy"]', 'true')]);
    await waitForNames(page, ['alpha', 'delta']);
    await Promise.all([page.waitForURL(/sort=name/), page.click('th a:text("Name")')]);
    await Promise.all([page.waitForURL(/order=desc/), page.click('th a:text("Name")')]);
    expect(await names(page)).to.deep.equal(['delta', 'alpha']);
    expect(page.url()).to.match(/match=env%3Dprod/);
  });

  it('follows an agent link to its detail page and refreshes the detail fragment', async () => {
    await Promise.all([page.waitForURL(/\/agents\//), page.click('#fleet-table .agent-name:text("alpha")')]);
    expect(await page.locator('h1').textContent()).to.equal('alpha');
    expect(await page.locator('#agent-detail').textContent()).to.include(agents[0]!.uid);
    // alpha reports its own metrics and was offered where to send them (docs/own-telemetry.md).
    const offered = app!.registry.get(agents[0]!.uid as InstanceUid)?.offeredSettingsHash;
    expect(offered).to.be.a('string');
    const ownTelemetry = await page.locator('#own-telemetry').textContent();
    expect(ownTelemetry).to.include(offered!.slice(0, 12)).and.include('No connection settings status');
    const refreshed = page.waitForResponse(
      (r) => r.url().includes('/partials/agents/') && r.status() === 200,
    );
    await page.click('#agent-detail button:text("Refresh")');
    await refreshed;
    await page.locator('#agent-detail h1').waitFor();
    expect(await page.locator('#agent-detail h1').textContent()).to.equal('alpha');
    await page.screenshot({ path: new URL('agent.png', artifacts).pathname, fullPage: true });
  });

  it('shows live fleet counts on the status page', async () => {
    await page.goto(`${app!.urls.ui}/status`);
    const total = () => page.locator('.stat:has(.label:text-is("Total")) .value').textContent();
    expect(await total()).to.equal('5');
    agents.push(await connectAgent(app!, { identifying: { 'service.name': 'foxtrot' } }));
    await page.waitForFunction(
      () => (globalThis as unknown as Win).document.querySelector('.stat .value')?.textContent === '6',
      undefined,
      { timeout: 20_000 },
    );
    await page.screenshot({ path: new URL('status.png', artifacts).pathname, fullPage: true });
  });

  it('switches to the dark theme from the toggle and keeps it across pages', async () => {
    await page.click('[data-theme-toggle]');
    await page.click('[data-theme-toggle]');
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.documentElement.dataset.theme),
    ).to.equal('dark');
    await page.goto(`${app!.urls.ui}/`);
    expect(
      await page.evaluate(() => (globalThis as unknown as Win).document.documentElement.dataset.theme),
    ).to.equal('dark');
    const report = await contrastOf(page);
    expect(report.pageLuminance).to.be.below(0.1);
    expect(report.failures).to.deep.equal([]);
    await page.screenshot({ path: new URL('fleet-dark.png', artifacts).pathname, fullPage: true });
  });

  it('ran without Content-Security-Policy violations, script errors or requests to other origins', () => {
    expect(problems).to.deep.equal([]);
  });
});
