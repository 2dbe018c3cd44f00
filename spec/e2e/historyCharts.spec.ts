// The fleet-over-time charts in real headless Chromium: an hour of a scripted fleet in virtual time
// (agents joining in waves, some unhealthy, some leaving), then the status page in the light and the
// dark theme. The charts' colours are read back from the browser (computed styles, so the stylesheet
// and the theme are what is measured) and each line, legend key and axis label must stand out from
// the panel behind it: WCAG 2.1 contrast ≥ 3 for graphics (1.4.11) and ≥ 4.5 for text (1.4.3).
// Screenshots: artifacts/history-light.png, history-dark.png.

import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import { agentMessage, description, newUid, postHttp } from '../support/agentClient.ts';
import { bodyHashOf } from '../../src/projections/remoteConfig/desiredConfig.ts';
import { startApp } from '../support/startApp.ts';
import { VirtualClock } from '../support/virtualTime.ts';
import { artifacts, launchBrowser, requireChromium, watchProblems } from './browserHarness.ts';
import { contrastRatio, parseRgb } from './contrast.ts';

interface Measured {
  readonly what: string;
  readonly colour: string;
  readonly background: string;
  readonly text: boolean;
}

/** Runs in the page: every chart line, legend key and axis label with the panel colour behind it. */
function measureCharts(): Measured[] {
  type El = { parentElement: El | null; matches(s: string): boolean; getAttribute(n: string): string | null };
  const w = globalThis as unknown as {
    document: { querySelectorAll(s: string): Iterable<El> };
    getComputedStyle(e: El, pseudo?: string): Record<string, string>;
  };
  const behind = (el: El): string => {
    for (let e: El | null = el; e !== null; e = e.parentElement) {
      const bg = w.getComputedStyle(e).backgroundColor!;
      if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
    }
    return 'rgb(255, 255, 255)';
  };
  const out: Measured[] = [];
  for (const el of w.document.querySelectorAll('#history .chart-line'))
    out.push({
      what: el.getAttribute('class')!,
      colour: w.getComputedStyle(el).stroke!,
      background: behind(el),
      text: false,
    });
  for (const el of w.document.querySelectorAll('#history .chart-legend li'))
    out.push({
      what: `legend ${el.getAttribute('class')!}`,
      colour: w.getComputedStyle(el, '::before').backgroundColor!,
      background: behind(el),
      text: false,
    });
  for (const el of w.document.querySelectorAll('#history .chart-axis, #history .chart-legend li'))
    out.push({
      what: `text ${el.getAttribute('class')!}`,
      colour: w.getComputedStyle(el).color!,
      background: behind(el),
      text: true,
    });
  for (const el of w.document.querySelectorAll('#history .chart-axis'))
    out.push({
      what: 'axis label fill',
      colour: w.getComputedStyle(el).fill!,
      background: behind(el),
      text: true,
    });
  return out;
}

describe('fleet-over-time charts in a real browser', function () {
  this.timeout(120_000);
  const clock = new VirtualClock(Date.UTC(2026, 10, 26, 9, 0, 0), { longTimers: true });
  let app: App | undefined;
  let browser: Browser | undefined;
  const problems: string[] = [];

  /** One message of an HTTP agent (HTTP, not WebSocket: no socket stays open across virtual time). */
  /** What each agent declares (one in four cannot take remote configs) and the config it was sent. */
  const capabilities = new Map<string, number>();
  const offered = new Map<string, { hash: Uint8Array; reports: number }>();
  const sequence = new Map<string, number>();
  /** One message of the agent, numbered in order (a gap would make the server ask for full state). */
  const post = async (uid: string, fields: Record<string, unknown>) => {
    const sequenceNum = sequence.get(uid) ?? 0;
    sequence.set(uid, sequenceNum + 1);
    const reply = await postHttp(
      app!.urls.opamp,
      agentMessage(uid, { capabilities: capabilities.get(uid), sequenceNum, ...fields }),
    );
    expect(reply.status).to.equal(200);
    const hash = reply.message?.remoteConfig?.configHash;
    if (hash !== undefined && hash.length > 0) offered.set(uid, { hash, reports: 0 });
  };
  /** An agent that was sent the config reports applying, then applied (or, one in ten, failed). */
  const configReport = (uid: string, i: number) => {
    const o = offered.get(uid);
    if (o === undefined) return {};
    o.reports++;
    const status = o.reports === 1 ? 2 : i % 10 === 0 ? 3 : 1;
    return { remoteConfigStatus: { lastRemoteConfigHash: o.hash, status } };
  };

  before(async function () {
    requireChromium(this);
    // Disconnected after 15 min of silence, evicted after an hour: agents that stop polling at
    // minute 40 are disconnected but still registered at the end of the hour.
    app = await startApp({
      config: {
        ui: { poll_interval: '500ms' },
        fleet: { heartbeat_interval: '10m', stale_missed_heartbeats: 6 },
      },
      deps: { scheduler: clock.scheduler },
    });
    const fleet: string[] = [];
    for (let step = 0; step < 360; step++) {
      // Ten seconds a step: four agents join every three minutes for half an hour, one in four
      // without reporting health.
      if (step < 180 && step % 18 === 0)
        for (let i = 0; i < 4; i++) {
          const uid = newUid();
          fleet.push(uid);
          // ReportsStatus, and AcceptsRemoteConfig with ReportsRemoteConfig except for one in four.
          capabilities.set(uid, i === 3 ? 0x1 : 0x1003);
          const health = i === 3 ? {} : { health: { healthy: true, status: 'StatusOK' } };
          await post(uid, {
            agentDescription: description({ 'service.name': `collector-${fleet.length}` }),
            ...health,
          });
        }
      if (step === 210)
        for (const uid of fleet.slice(0, 6))
          await post(uid, { health: { healthy: false, status: 'StatusFailed' } });
      if (step === 120) {
        const selector = 'service.name=~"collector-.*"';
        const config = {
          name: 'collectors',
          revision: 1,
          selector,
          body: 'receivers: {}',
          contentType: 'text/yaml',
          enabled: true,
        };
        app.bus.publish({
          type: 'RemoteConfigChanged',
          at: clock.now(),
          data: { config: { ...config, bodyHash: bodyHashOf(config.body) } },
        });
      }
      if (step === 240) fleet.splice(-8);
      if (step === 250 || step === 300) await postHttp(app.urls.opamp, new Uint8Array([0xff, 0xff, 0xff]));
      // Each agent polls every five minutes, spread over the steps.
      for (const [i, uid] of fleet.entries()) if (i % 30 === step % 30) await post(uid, configReport(uid, i));
      clock.advance(10_000);
    }
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await app?.stop();
  });

  for (const theme of ['light', 'dark'] as const) {
    describe(`${theme} theme`, () => {
      let page: Page;
      before(async () => {
        page = await browser!.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: theme });
        watchProblems(page, () => app!.urls.ui, problems);
        await page.goto(`${app!.urls.ui}/status`);
      });
      after(() => page.close());

      it('draws every series of the last hour', async () => {
        const lines = await page.locator('#history .chart-line').count();
        expect(lines).to.equal(14);
        const label = await page.locator('#chart-fleet svg').getAttribute('aria-label');
        expect(label).to.equal('Fleet size, last 60 min: Registered 40, Connected 32');
        // The page, clipped to the charts: the polled fragment may be swapped during an element shot.
        let clip = await page.locator('#history').boundingBox();
        while (clip === null) clip = await page.locator('#history').boundingBox();
        await page.screenshot({ path: new URL(`history-${theme}.png`, artifacts).pathname, clip });
      });

      it('keeps every chart colour at WCAG contrast against its panel', async () => {
        const measured = await page.evaluate(measureCharts);
        expect(measured.length).to.be.greaterThan(20);
        const weak = measured
          .map((m) => ({ ...m, ratio: contrastRatio(parseRgb(m.colour), parseRgb(m.background)) }))
          .filter((m) => m.ratio < (m.text ? 4.5 : 3))
          .map((m) => `${m.what}: ${m.colour} on ${m.background} = ${m.ratio.toFixed(2)}`);
        expect(weak).to.deep.equal([]);
      });

      it('shows the last 24 hours from its tab, swapped in place and kept by the poll', async () => {
        await page.getByRole('link', { name: 'Last 24 h' }).click();
        await page.locator('#history .tab.current', { hasText: 'Last 24 h' }).waitFor();
        expect(page.url()).to.match(/\/status$/);
        // Two polls later the fragment still shows the window the operator chose.
        for (let i = 0; i < 2; i++)
          await page.waitForResponse((r) => r.url().endsWith('/partials/history?window=24h'));
        expect(await page.locator('#history .tab.current').textContent()).to.equal('Last 24 h');
        const label = await page.locator('#chart-fleet svg').getAttribute('aria-label');
        expect(label).to.equal('Fleet size, last 24 h: Registered 40, Connected 32');
      });
    });
  }

  describe('after both themes', () => {
    it('works without JavaScript: the charts are in the page and the tabs are links', async () => {
      const context = await browser!.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${app!.urls.ui}/status`);
      expect(await page.locator('#history .chart-line').count()).to.be.greaterThan(0);
      await page.getByRole('link', { name: 'Last 24 h' }).click();
      expect(page.url()).to.match(/\/status\?window=24h$/);
      expect(await page.locator('#history .tab.current').textContent()).to.equal('Last 24 h');
      await context.close();
    });

    it('caused no CSP violation, script error or request to another origin', () => {
      expect(problems).to.deep.equal([]);
    });
  });
});
