// Every page and endpoint that shows a config body or a diff of bodies, asked as a viewer and as an
// anonymous reader, with a config (and an agent's effective config) full of planted secrets: none of
// them shows a secret. Refusals (403, 404) and the log written meanwhile included. Real service,
// real PostgreSQL, a real OpAMP agent.

import { expect } from 'chai';
import { Writable } from 'node:stream';
import type { App } from '../../src/app.ts';
import { createLogger } from '../../src/io/logger.ts';
import { apiToken } from '../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startApp } from '../support/startApp.ts';
import { raw } from './guard/rawHttp.ts';
import { connectAgent, type TestAgent } from './pages/pagesHarness.ts';

const admin = 'everywhere-admin-token';
const viewer = 'everywhere-viewer-token';
const tokens = [apiToken('ops', admin, 'admin'), apiToken('wall', viewer, 'viewer')];

/** Every secret holds `zzs`; the body holds each case redaction must handle. */
const bodyOf = (revision: number) =>
  [
    `# revision ${revision}`,
    'exporters:',
    '  otlphttp:',
    `    endpoint: https://ops:zzs-url-${revision}@collector.example:4318`,
    '    headers:',
    `      Authorization: Bearer zzs-bearer-${revision}`,
    `      x-api-key: "zzs-apikey-${revision}"`,
    '    tls:',
    `      key_pem: "-----BEGIN PRIVATE KEY-----`,
    `        zzs-pem-${revision}`,
    '        -----END PRIVATE KEY-----"',
    'extensions:',
    '  bearertokenauth:',
    `    token: zzs-token-${revision}`,
    '  oauth2client:',
    `    client_secret: { value: zzs-cs-${revision} }`,
    'tokens:',
    `- zzs-seq-${revision}`,
    'api:',
    `  key: zzs-api-${revision}`,
    `"pass\\u0077ord": zzs-escaped-${revision}`,
    `shared: &s zzs-anchor-${revision}`,
    'db:',
    '  password: *s',
    `  secret: zzs-plain-${revision}`,
    `    zzs-continued-${revision}`,
    `private_key: |`,
    `  zzs-block-${revision}`,
    'service:',
    '  extensions: [bearertokenauth, oauth2client]',
    '',
  ].join('\n');

describe('no page or endpoint shows a secret to a viewer or an anonymous reader', function () {
  this.timeout(120_000);
  let db: TestDatabase;
  let app: App;
  let agent: TestAgent;
  let logged = '';
  const send = (
    path: string,
    token?: string,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ) =>
    raw(`${app.urls.ui}${path}`, {
      ...init,
      headers: { ...init.headers, ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }) },
    });
  const asAdmin = (path: string, method: string, body: object) =>
    send(path, admin, {
      method,
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });

  before(async () => {
    db = await createTestDatabase();
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const logger = createLogger({ level: 'debug', format: 'json', destination });
    app = await startApp({ config: { database: db.config, auth: { api_tokens: tokens } }, deps: { logger } });
    const created = await asAdmin('/api/configs', 'POST', {
      name: 'leaky',
      selector: 'env=prod',
      body: bodyOf(1),
    });
    expect(created.status, created.text).to.equal(201);
    const second = await asAdmin('/api/configs/leaky', 'PUT', {
      selector: 'env=prod',
      body: bodyOf(2),
      revision: 1,
    });
    expect(second.status, second.text).to.equal(200);
    const draft = await asAdmin('/api/configs/leaky', 'PUT', {
      selector: 'env=prod',
      body: bodyOf(3),
      revision: 2,
      draft: true,
    });
    expect(draft.status, draft.text).to.equal(200);
    const configMap = { 'c.yaml': { body: Buffer.from(bodyOf(4)), contentType: 'text/yaml' } };
    agent = await connectAgent(app, {
      nonIdentifying: { env: 'prod' },
      fields: { effectiveConfig: { configMap: { configMap } } },
    });
  });
  after(async () => {
    await agent?.ws.close();
    await app?.stop();
    await db?.drop();
  });

  const reads = () => [
    '/',
    '/configs',
    '/partials/configs',
    '/configs/leaky',
    '/configs/leaky?from=1&to=2',
    '/configs/leaky?from=2&to=3',
    '/configs/leaky?from=1&to=3',
    '/configs/leaky/edit',
    '/configs/leaky/revisions/1/restore',
    '/configs/leaky/revisions/3/restore',
    '/configs/leaky/revisions/99/restore',
    '/configs/leaky/rollout',
    '/partials/configs/leaky/agents',
    `/agents/${agent.uid}`,
    `/partials/agents/${agent.uid}`,
    '/partials/agents',
    '/partials/history',
    '/jobs',
    '/status',
    '/api/configs',
    '/api/configs/leaky',
    '/api/configs/leaky/revisions',
    '/api/configs/leaky/revisions/1',
    '/api/configs/leaky/revisions/2',
    '/api/configs/leaky/revisions/3',
    '/api/configs/leaky/agents',
    `/api/agents/${agent.uid}`,
    '/api/agents',
    '/api/openapi.json',
  ];
  const form = (body: string) => ({
    method: 'POST',
    body: new URLSearchParams({ name: 'leaky', selector: 'env=prod', body, revision: '3' }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'HX-Request': 'true' },
  });
  const writes = () =>
    [
      '/configs/leaky/edit',
      '/partials/configs/check',
      '/configs/leaky/revisions/1/restore',
      '/configs/leaky/rollout',
    ].map((path) => ({ path, init: form(bodyOf(5)) }));

  for (const who of ['viewer', 'anonymous'] as const) {
    it(`shows no secret to ${who === 'viewer' ? 'a viewer' : 'an anonymous reader'} on any read`, async () => {
      const token = who === 'viewer' ? viewer : undefined;
      for (const path of reads()) {
        const r = await send(path, token);
        expect(r.status, path).to.be.oneOf([200, 403, 404]);
        expect(r.text, `${path} (${r.status})`).to.not.include('zzs');
      }
      const page = await send('/configs/leaky', token);
      expect(page.text).to.include('collector.example:4318').and.include('bearertokenauth');
    });

    it(`echoes no secret of a refused write from ${who === 'viewer' ? 'a viewer' : 'an anonymous reader'}`, async () => {
      const token = who === 'viewer' ? viewer : undefined;
      for (const { path, init } of writes()) {
        const r = await send(path, token, init);
        expect(r.status, path).to.equal(403);
        expect(r.text, path).to.not.include('zzs');
      }
    });
  }

  it('shows the restore and rollout diffs to an admin, so their absence above is a refusal', async () => {
    for (const path of ['/configs/leaky/revisions/1/restore', '/configs/leaky/rollout']) {
      const r = await send(path, admin);
      expect(r.status, path).to.equal(200);
      expect(r.text, path).to.include('zzs-token-');
    }
  });

  it('logs no secret meanwhile', () => {
    expect(logged).to.not.include('zzs');
  });
});
