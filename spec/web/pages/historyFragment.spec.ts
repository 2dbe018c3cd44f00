// The fleet-over-time fragment over real HTTP, in virtual time: on the status page and the fleet
// page, polled with the window it shows, the window chosen only from the two it knows, and nothing
// inline that the Content-Security-Policy would block.

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { contentSecurityPolicy } from '../../../src/web/pages/pageContext.ts';
import { startApp } from '../../support/startApp.ts';
import { VirtualClock } from '../../support/virtualTime.ts';
import { connectAgent, get, type TestAgent } from './pagesHarness.ts';

const section = (html: string) => /<section[^>]*id="history"[^>]*>/.exec(html)?.[0] ?? '';

describe('fleet over time (GET /partials/history, the status and fleet pages)', () => {
  const clock = new VirtualClock(Date.UTC(2026, 10, 26, 8, 0, 0));
  let app: App;
  let agent: TestAgent;

  before(async () => {
    app = await startApp({
      config: { ui: { poll_interval: '3s' }, fleet: { heartbeat_interval: '1h' } },
      deps: { scheduler: clock.scheduler },
    });
    agent = await connectAgent(app, { identifying: { 'service.name': 'a' }, healthy: true });
    clock.advance(30_000);
  });
  after(async () => {
    await agent.ws.close();
    await app.stop();
  });

  it('polls the last hour by default, every ui.poll_interval, with the CSP of every fragment', async () => {
    const res = await get(`${app.urls.ui}/partials/history`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.equal(contentSecurityPolicy);
    expect(section(res.body)).to.contain('hx-get="/partials/history?window=1h"');
    expect(section(res.body)).to.contain('hx-trigger="every 3000ms"');
    expect(res.body).to.contain('aria-label="Fleet size, last 60 min: Registered 1, Connected 1"');
    expect(res.body).not.to.match(/\sstyle=/);
  });

  it('keeps the 24-hour window through the poll, and takes no other value', async () => {
    const day = await get(`${app.urls.ui}/partials/history?window=24h`);
    expect(section(day.body)).to.contain('hx-get="/partials/history?window=24h"');
    expect(day.body).to.contain('<span class="tab current" aria-current="true">Last 24 h</span>');
    // Three samples are not yet a 5-minute point: the 24-hour charts say so instead of guessing.
    expect(day.body).to.contain('No samples yet');
    for (const odd of ['7d', '%3Cscript%3E', '24h&window=7d'])
      expect(section((await get(`${app.urls.ui}/partials/history?window=${odd}`)).body)).to.contain(
        'window=1h',
      );
  });

  it('is on the status page, whose ?window= picks the window without JavaScript', async () => {
    const page = await get(`${app.urls.ui}/status?window=24h`);
    expect(section(page.body)).to.contain('window=24h');
    expect(page.body).to.contain('<a class="tab" href="/status?window=1h"');
  });

  it('is on the fleet page for the last hour, its other window a link to the status page', async () => {
    const page = await get(`${app.urls.ui}/`);
    expect(section(page.body)).to.contain('window=1h');
    expect(page.body).to.contain('<a class="tab" href="/status?window=24h"');
    expect(page.body).to.contain('class="chart-line line-connected"');
  });
});
