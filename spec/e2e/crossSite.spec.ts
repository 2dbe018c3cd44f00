// Cross-site writes in a real Chromium. A page on a second origin (another port and host name of
// this machine) auto-submits the forms an attacker would: a text/plain form whose body is JSON to
// POST /api/configs, a form to a job page's button, a form to the config editor, a form to the
// job-queue UI. The browser holds an admin credential it sends on every request to the service (as
// a client certificate would: here an Authorization header on every request of the browser context)
// and the service also lets anonymous callers write. Every form is refused and nothing is written. A name rebound to this
// address (DNS rebinding, by Chromium's host resolver rules) is not answered at all.

import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { App } from '../../src/app.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { scrape } from '../telemetry/scrape.ts';
import { raw } from '../web/guard/rawHttp.ts';
import { executablePath, launchArgs, requireChromium } from './browserHarness.ts';

const admin = 'cross-site-admin-token';

/** The attacker's page: one form posting to `action`, submitted as soon as it loads. */
function attackPage(action: string, enctype: string, field: string, value: string): string {
  const attr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
  return `<!doctype html><form id="f" method="POST" action="${attr(action)}" enctype="${enctype}">
<input type="hidden" name="${attr(field)}" value="${attr(value)}"></form>
<script>document.getElementById('f').submit()</script>`;
}

describe('cross-site writes in a real browser', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let app: App;
  let evil: Server;
  let evilOrigin = '';
  let browser: Browser | undefined;
  let page: Page;
  const pages = new Map<string, string>();

  const configNames = async () => {
    const r = await raw(`${app.urls.ui}/api/configs`, { headers: { Authorization: `Bearer ${admin}` } });
    return (JSON.parse(r.text) as { configs: { name: string }[] }).configs.map((c) => c.name);
  };
  const refused = async (reason: string) =>
    (await scrape(`${app.urls.telemetry}/metrics`)).value('svc_ui_requests_refused_total', { reason }) ?? 0;
  /** Opens the attacker's page and waits for the service's answer to its form. */
  const attack = async (name: string, html: string) => {
    pages.set(`/${name}`, html);
    await Promise.all([
      page.waitForURL((u) => u.origin === app.urls.ui, { waitUntil: 'load' }),
      page.goto(`${evilOrigin}/${name}`),
    ]);
    return (await page.locator('body').textContent()) ?? '';
  };

  before(async function () {
    requireChromium(this);
    db = await createTestDatabase();
    app = await startApp({
      config: {
        database: db.config,
        auth: { api_tokens: [apiToken('ops', admin, 'admin')], allow_unauthenticated_writes: true },
        ui: { allowed_hosts: ['127.0.0.1'] },
      },
    });
    evil = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(pages.get(req.url ?? '') ?? '');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    // Another host name and port: another site to the browser.
    evilOrigin = `http://evil.test:${(evil.address() as AddressInfo).port}`;
    const port = new URL(app.urls.ui).port;
    browser = await chromium.launch({
      executablePath,
      args: [...launchArgs, `--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebound.test 127.0.0.1`],
    });
    const context = await browser.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${admin}` } });
    page = await context.newPage();
    expect(port).to.not.equal('');
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => evil?.close(resolve));
    await app?.stop();
    await db?.drop();
  });

  it('refuses a text/plain form whose body is JSON, posted to /api/configs from another site', async () => {
    const before = await refused('cross_site');
    const json = '{"name":"everyone","selector":"service.name=~\\".*\\"","body":"a: 1\\n","x":"';
    const text = await attack('config', attackPage(`${app.urls.ui}/api/configs`, 'text/plain', json, '"}'));
    expect(text).to.include('cross-site write refused (Sec-Fetch-Site: cross-site)');
    expect(await refused('cross_site')).to.equal(before + 1);
    expect(await configNames()).to.deep.equal([]);
  });

  it('refuses forms to a job button and to the job-queue UI from another site', async () => {
    const job = await raw(`${app.urls.ui}/api/jobs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` },
      body: JSON.stringify({ filter: 'env=prod', action: 'restart', submitted_by: 'spec' }),
    });
    const id = (JSON.parse(job.text) as { id: string }).id;
    const button = await attack(
      'job',
      attackPage(`${app.urls.ui}/jobs/${id}/arm`, 'application/x-www-form-urlencoded', 'x', '1'),
    );
    expect(button).to.include('cross-site write refused');
    const queue = await attack(
      'queue',
      attackPage(
        `${app.urls.ui}/jobs-ui/schedules`,
        'application/x-www-form-urlencoded',
        'intent',
        'unschedule',
      ),
    );
    expect(queue).to.include('cross-site write refused');
    const status = await raw(`${app.urls.ui}/api/jobs/${id}`, {
      headers: { Authorization: `Bearer ${admin}` },
    });
    expect((JSON.parse(status.text) as { status: string }).status).to.equal('planned');
  });

  it('refuses a form to the config editor from another site', async () => {
    const before = await refused('cross_site');
    const text = await attack(
      'editor',
      attackPage(`${app.urls.ui}/new-config`, 'application/x-www-form-urlencoded', 'name', 'everyone'),
    );
    expect(text).to.include('cross-site write refused (Sec-Fetch-Site: cross-site)');
    expect(await refused('cross_site')).to.equal(before + 1);
    expect(await configNames()).to.deep.equal([]);
  });

  it('takes the same write from a page of the service itself', async () => {
    await page.goto(`${app.urls.ui}/`);
    const status = await page.evaluate(async () => {
      const body = JSON.stringify({ name: 'own', selector: 'env=prod', body: 'a: 1\n' });
      const headers = { 'Content-Type': 'application/json' };
      return (await fetch('/api/configs', { method: 'POST', headers, body })).status;
    });
    expect(status).to.equal(201);
    expect(await configNames()).to.deep.equal(['own']);
  });

  it('does not answer a page whose host name was rebound to this address', async () => {
    const port = new URL(app.urls.ui).port;
    const response = await page.goto(`http://rebound.test:${port}/api/agents`);
    expect(response?.status()).to.equal(403);
    expect(await page.locator('body').textContent()).to.include('Host \\"rebound.test');
  });
});
