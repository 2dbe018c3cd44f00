// The remote-config pages in real headless Chromium: configs read from a directory, real WebSocket
// agents in every config state, and an operator who goes from the configs list to a config, compares
// two revisions, watches a new agent apply it, opens an agent and filters the fleet by config state,
// in the light and the dark theme. Screenshots go to artifacts/ (configs*.png, config*.png,
// agent-remote-config.png, fleet-config-state.png).

import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { connectConfigAgent, startConfigFleet, type ConfigFleet } from '../web/pages/configsHarness.ts';
import type { TestAgent } from '../web/pages/pagesHarness.ts';
import { expectReadsWell } from './contrast.ts';
import { launchBrowser, requireChromium, screenshot, watchProblems, type Win } from './browserHarness.ts';

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

/** Waits until the polled element matching `selector` lists exactly `expected` (sorted). */
async function waitForTexts(page: Page, selector: string, expected: string[]): Promise<void> {
  await page.waitForFunction(
    ([sel, want]) => {
      const got = [...(globalThis as unknown as Win).document.querySelectorAll(sel)]
        .map((a) => a.textContent)
        .sort();
      return JSON.stringify(got) === JSON.stringify([...want].sort());
    },
    [selector, expected] as const,
    { timeout: 20_000 },
  );
}

describe('remote config pages in a real browser', function () {
  this.timeout(120_000);
  let fleet: ConfigFleet | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const extra: TestAgent[] = [];
  const problems: string[] = [];
  const ui = () => fleet!.app.urls.ui;

  before(async function () {
    requireChromium(this);
    fleet = await startConfigFleet({ ui: { poll_interval: '300ms' } });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    watchProblems(page, ui, problems);
  });

  after(async () => {
    await browser?.close();
    for (const a of extra) await a.ws.close();
    await fleet?.stop();
  });

  it('opens the configs list from the navigation, with counts and the file that does not parse', async () => {
    await page.goto(`${ui()}/`);
    await Promise.all([page.waitForURL(/\/configs$/), page.click('nav.nav a:text("Configs")')]);
    expect(await texts(page, '#configs .agent-name')).to.deep.equal(['base', 'edge']);
    expect(await page.locator('#configs .banner.error').textContent()).to.include('broken.yaml');
    const base = page.locator('#configs tr:has(a.agent-name:text-is("base")) td.num');
    expect(await base.allTextContents()).to.deep.equal(['5', '1', '1', '1', '1', '0', '0', '1']);
    await screenshot(page, 'configs.png');
  });

  it('follows a config to its page and sees its highlighted body and its agents', async () => {
    await Promise.all([
      page.waitForURL(/\/configs\/base$/),
      page.click('#configs a.agent-name:text-is("base")'),
    ]);
    expect(await page.locator('h1').textContent()).to.equal('base');
    expect(await texts(page, 'pre.code .tok-key')).to.include('receivers');
    await waitForTexts(page, '#config-agents .agent-name', ['alpha', 'bravo', 'charlie', 'delta', 'foxtrot']);
    expect(await page.locator('#config-agents tr:has-text("bravo") .badge').textContent()).to.equal('Failed');
    await screenshot(page, 'config.png');
  });

  it('compares two revisions chosen in the form', async () => {
    await page.selectOption('select[name="from"]', '1');
    await page.selectOption('select[name="to"]', '3');
    await Promise.all([page.waitForURL(/from=1&to=3/), page.click('#diff button:text("Compare")')]);
    expect(await page.locator('.diff-summary').textContent()).to.include('Revision 1 → revision 3');
    expect(await texts(page, 'table.diff tr.diff-add .diff-text')).to.deep.equal([
      '+  otlp: {endpoint: "collector:4317"} # main',
    ]);
    await screenshot(page, 'config-diff.png');
  });

  it('shows a newly connected agent applying the config without a reload', async () => {
    extra.push(
      await connectConfigAgent(fleet!.app, {
        name: 'golf',
        nonIdentifying: { env: 'prod' },
        report: 'applied',
      }),
    );
    await waitForTexts(page, '#config-agents .agent-name', [
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'foxtrot',
      'golf',
    ]);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as Win).document.querySelector('#config-agents .tile.cfg-applied .value')
          ?.textContent === '2',
      undefined,
      { timeout: 20_000 },
    );
    expect(page.url()).to.match(/from=1&to=3/);
  });

  it('keeps the agents table to one state from its tile, and opens an agent’s remote config', async () => {
    await Promise.all([
      page.waitForURL(/config_state=failed/),
      page.click('#config-agents .tile.cfg-failed'),
    ]);
    await waitForTexts(page, '#config-agents .agent-name', ['bravo']);
    await Promise.all([
      page.waitForURL(/\/agents\//),
      page.click('#config-agents a.agent-name:text("bravo")'),
    ]);
    const section = page.locator('#remote-config');
    expect(await section.locator('.badge').textContent()).to.equal('Failed');
    expect(await section.textContent()).to.include('exporter "otlp" cannot start');
    await screenshot(page, 'agent-remote-config.png');
    await Promise.all([page.waitForURL(/\/configs\/base$/), section.locator('a.chip').click()]);
  });

  it('filters the fleet by config state from the Config select, through polling', async () => {
    await page.goto(`${ui()}/`);
    await Promise.all([
      page.waitForURL(/config_state=pending/),
      page.selectOption('select[name="config_state"]', 'pending'),
    ]);
    await waitForTexts(page, '#fleet-table .agent-name', ['charlie']);
    extra.push(await connectConfigAgent(fleet!.app, { name: 'hotel', nonIdentifying: { env: 'prod' } }));
    await waitForTexts(page, '#fleet-table .agent-name', ['charlie', 'hotel']);
    await screenshot(page, 'fleet-config-state.png');
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`reads well in the ${scheme} theme: every text at least 4.5:1 against its background`, () =>
      expectReadsWell(
        page,
        scheme,
        [
          [`${ui()}/configs`, `configs-${scheme}.png`],
          [`${ui()}/configs/base?from=1&to=3`, `config-${scheme}.png`],
        ],
        screenshot,
      ));
  }

  it('ran without Content-Security-Policy violations, script errors or requests to other origins', () => {
    expect(problems).to.deep.equal([]);
  });
});
