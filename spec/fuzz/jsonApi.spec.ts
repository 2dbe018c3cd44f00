// Property-based fuzzing of the JSON API over HTTP, against the running service and a real
// PostgreSQL: every endpoint, with random and mutated bodies, headers, methods, path parameters and
// query strings, as every kind of caller. No answer is a 5xx other than a documented 503, the
// service never falls over, and /healthz answers after every batch. Each run sends a batch of
// requestsPerRun requests at once; `npm run fuzz` (FUZZ_RUNS=20000) sends 100,000, `npm test` a few
// hundred. FUZZ_SEED replays a failure that fast-check reports.

import { expect } from 'chai';
import fc from 'fast-check';
import type { App } from '../../src/app.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { raw, type RawResponse } from '../web/guard/rawHttp.ts';
import { apiRequest, requestsPerRun, type FuzzTargets } from './apiRequests.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 60);
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = { numRuns: runs, ...(seed === undefined ? {} : { seed }) };
const admin = 'fuzz-admin-token';
const viewer = 'fuzz-viewer-token';

describe('JSON API fuzz', function () {
  this.timeout(0);
  let db: TestDatabase;
  let app: App;
  const targets: FuzzTargets = { configs: ['base'], jobs: [], tokens: { admin, viewer } };

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: {
        database: db.config,
        auth: {
          api_tokens: [apiToken('fuzz-admin', admin, 'admin'), apiToken('fuzz-viewer', viewer, 'viewer')],
        },
      },
    });
    const json = { 'Content-Type': 'application/json', Authorization: `Bearer ${admin}` };
    const config = JSON.stringify({ name: 'base', selector: 'env=prod', body: 'a: 1\n' });
    expect(
      (await raw(`${app.urls.ui}/api/configs`, { method: 'POST', headers: json, body: config })).status,
    ).to.equal(201);
    const job = await raw(`${app.urls.ui}/api/jobs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ filter: 'env=prod', action: 'restart', submitted_by: 'fuzz' }),
    });
    targets.jobs.push((JSON.parse(job.text) as { id: string }).id);
  });
  after(async () => {
    await app?.stop();
    await db?.drop();
  });

  it(`answers ${runs * requestsPerRun} random requests without a 5xx other than 503, and stays healthy`, async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(apiRequest(targets), { minLength: requestsPerRun, maxLength: requestsPerRun }),
        async (batch) => {
          const answers: RawResponse[] = await Promise.all(
            batch.map((r) =>
              raw(`${app.urls.ui}${r.path}`, {
                method: r.method,
                headers: r.headers,
                ...(r.body === undefined ? {} : { body: r.body }),
              }),
            ),
          );
          sent += batch.length;
          answers.forEach((a, i) => {
            const r = batch[i]!;
            expect(
              a.status === 503 || a.status < 500,
              `${r.method} ${r.path} -> ${a.status} ${a.text.slice(0, 300)}`,
            ).to.equal(true);
          });
          expect((await raw(`${app.urls.telemetry}/healthz`)).status).to.equal(200);
        },
      ),
      params,
    );
    expect(sent).to.equal(runs * requestsPerRun);
  });
});
