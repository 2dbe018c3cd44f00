// The job-queue dashboard under /jobs-ui behind the listener's rules: its actions need an admin,
// another site cannot start them, and a body of any size costs at most the cap.

import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import type { App } from '../../../src/app.ts';
import { maxJobsUiBodyBytes } from '../../../src/persistence/jobs/jobsUi.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { scrape } from '../../telemetry/scrape.ts';
import { raw } from './rawHttp.ts';

const admin = 'jobs-ui-admin-token';
const viewer = 'jobs-ui-viewer-token';
const tokens = [apiToken('ops', admin, 'admin'), apiToken('wall', viewer, 'viewer')];
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
const unschedule = 'intent=unschedule';

/** Streams `total` bytes (one reused 1 MiB chunk) without a Content-Length; resolves with the status. */
function streamBody(url: string, headers: Record<string, string>, total: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    let sent = 0;
    const pump = () => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

describe('the job-queue UI under the write rule', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let app: App;
  const url = (path: string) => `${app.urls.ui}${path}`;
  const refused = async (reason: string) =>
    (await scrape(`${app.urls.telemetry}/metrics`)).value('svc_ui_requests_refused_total', { reason }) ?? 0;
  const purgeScheduled = async () => {
    const page = await raw(url('/jobs-ui/schedules'), { headers: { Authorization: `Bearer ${admin}` } });
    return page.text.includes('purge-soft-deleted-agents');
  };

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth: { api_tokens: tokens } } });
  });
  after(async () => {
    await app?.stop();
    await db?.drop();
  });

  it('refuses the dashboard actions to anonymous callers and viewers, and changes nothing', async () => {
    expect(await purgeScheduled()).to.equal(true);
    const before = await refused('jobs_ui_write');
    const anonymous = await raw(url('/jobs-ui/schedules'), {
      method: 'POST',
      headers: form,
      body: unschedule,
    });
    expect(anonymous.status).to.equal(403);
    expect(anonymous.text).to.match(/job-queue UI is read-only for this caller/);
    expect(await refused('jobs_ui_write')).to.equal(before + 1);
    const asViewer = await raw(url('/jobs-ui/schedules'), {
      method: 'POST',
      headers: { ...form, Authorization: `Bearer ${viewer}` },
      body: unschedule,
    });
    expect(asViewer.status).to.equal(403);
    expect(asViewer.text).to.match(/wall has role viewer; POST needs admin/);
    expect(await purgeScheduled()).to.equal(true);
  });

  it('refuses an admin action another site started', async () => {
    const r = await raw(url('/jobs-ui/schedules'), {
      method: 'POST',
      headers: {
        ...form,
        Authorization: `Bearer ${admin}`,
        Origin: 'https://evil.example',
        'Sec-Fetch-Site': 'cross-site',
      },
      body: unschedule,
    });
    expect(r.status).to.equal(403);
    expect(r.text).to.match(/cross-site write refused/);
    expect(await purgeScheduled()).to.equal(true);
  });

  it('answers 413 to a body over the cap, declared or streamed, without holding it', async () => {
    const declared = await raw(url('/jobs-ui/queues'), {
      method: 'POST',
      headers: { ...form, Authorization: `Bearer ${admin}` },
      body: Buffer.alloc(maxJobsUiBodyBytes + 1, 0x61),
    });
    expect(declared.status).to.equal(413);
    const before = await refused('body_too_large');
    const rssBefore = process.memoryUsage().rss;
    const status = await streamBody(
      url('/jobs-ui/queues'),
      { ...form, Authorization: `Bearer ${admin}` },
      400 * 1024 * 1024,
    );
    expect(status).to.equal(413);
    // The service runs in this process: 400 MB held would show here. The cap is 64 KiB.
    expect(process.memoryUsage().rss - rssBefore).to.be.below(64 * 1024 * 1024);
    expect(await refused('body_too_large')).to.equal(before + 1);
    expect((await raw(url('/jobs-ui/'), { headers: { Authorization: `Bearer ${viewer}` } })).status).to.equal(
      200,
    );
  });
});
