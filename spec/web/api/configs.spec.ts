// The remote config API against the running service with a real PostgreSQL: writes, history,
// preconditions, drafts, restore, delete, preview, validation and who may write.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, description, newUid, WsAgent } from '../../support/agentClient.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { errorOf, request, type ApiResponse } from './apiClient.ts';
import { apiToken } from '../../support/apiTokens.ts';

const adminToken = 'admin-secret-token';
const viewerToken = 'viewer-secret-token';
const tokens = [apiToken('ci-admin', adminToken, 'admin'), apiToken('dashboard', viewerToken, 'viewer')];
const AcceptsRemoteConfig = 0x2;

type Json = Record<string, unknown>;
const body = (r: ApiResponse) => r.json as Json;

describe('remote config API', () => {
  let db: TestDatabase;
  let app: App;
  const call = (method: string, path: string, json?: unknown, token: string | null = adminToken) =>
    request(`${app.urls.ui}${path}`, {
      method,
      headers: {
        ...(json !== undefined && { 'Content-Type': 'application/json' }),
        ...(token !== null && { Authorization: `Bearer ${token}` }),
      },
      ...(json !== undefined && { body: JSON.stringify(json) }),
    });
  const base = { name: 'exporters', selector: 'env=prod', body: 'exporters:\n  debug: {}\n' };

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({ config: { database: db.config, auth: { api_tokens: tokens } } });
  });
  after(async () => {
    await app.stop();
    await db.drop();
  });

  it('creates a config, attributes it to the token, and puts it in force at once', async () => {
    const created = await call('POST', '/api/configs', base);
    expect(created.status, created.text).to.equal(201);
    expect(body(created)).to.include({
      name: 'exporters',
      current_revision: 1,
      latest_revision: 1,
      updated_by: 'ci-admin',
    });
    const agent = await WsAgent.open(app.urls.opamp);
    const uid = newUid();
    const reply = await agent.send(
      agentMessage(uid, {
        capabilities: 0x1 | AcceptsRemoteConfig,
        agentDescription: description({ 'service.name': 'c' }, { env: 'prod' }),
      }),
    );
    expect(Buffer.from(reply.remoteConfig?.config?.configMap?.exporters?.body ?? []).toString()).to.equal(
      base.body,
    );
    await agent.close();
    const revisions = await call('GET', '/api/configs/exporters/revisions', undefined, null);
    expect((body(revisions).revisions as Json[]).map((r) => [r.revision, r.author, r.current])).to.deep.equal(
      [[1, 'ci-admin', true]],
    );
    const detail = await call('GET', '/api/configs/exporters', undefined, null);
    expect(body(detail)).to.include({ body: base.body, selector: 'env=prod' });
    expect(body(detail).agents).to.include({ targeted: 1 });
    expect(app.registry.get(uid as InstanceUid)?.offeredConfigHash).to.have.length(64);
  });

  it('refuses a change based on a stale revision with 409 and the newest revision', async () => {
    const first = await call('PUT', '/api/configs/exporters', { revision: 1, body: 'exporters: {}\n' });
    expect(first.status, first.text).to.equal(200);
    expect(body(first)).to.include({ current_revision: 2 });
    const stale = await call('PUT', '/api/configs/exporters', { revision: 1, body: 'exporters: {a: 1}\n' });
    expect(stale.status).to.equal(409);
    expect(body(stale)).to.include({ latest_revision: 2 });
    const missing = await call('PUT', '/api/configs/exporters', { body: 'x: 1\n' });
    expect(missing.status).to.equal(400);
    expect(errorOf(missing)).to.include('revision is required');
  });

  it('stores a draft without distributing it, and a later write makes its own revision current', async () => {
    const draft = await call('PUT', '/api/configs/exporters', {
      revision: 2,
      body: 'draft: true\n',
      draft: true,
    });
    expect(body(draft)).to.include({ current_revision: 2, latest_revision: 3, draft_revision: 3 });
    expect((await app.configs.get('exporters'))?.current?.revision).to.equal(2);
    const inForce = app.desired.current().configs.get('exporters')?.config;
    expect(inForce?.revision).to.equal(2);
    const onDraft = await call('PUT', '/api/configs/exporters', { revision: 3, enabled: true });
    expect(body(onDraft)).to.include({ current_revision: 4, draft_revision: null });
    expect(app.desired.current().configs.get('exporters')?.config.body).to.equal('draft: true\n');
  });

  it('restores an old revision as a new current one with its content', async () => {
    const restored = await call('POST', '/api/configs/exporters/revisions/1/restore');
    expect(restored.status, restored.text).to.equal(200);
    expect(body(restored)).to.include({ current_revision: 5, body: base.body });
    const r5 = await call('GET', '/api/configs/exporters/revisions/5', undefined, null);
    expect(body(r5)).to.include({ restored_from: 1, current: true, body: base.body });
  });

  it('previews a selector or a draft without changing anything', async () => {
    const before = await call('GET', '/api/configs', undefined, null);
    const preview = await call('POST', '/api/configs/preview', {
      name: 'exporters',
      selector: 'service.name=c',
      body: 'exporters: {preview: {}}\n',
    });
    expect(preview.status, preview.text).to.equal(200);
    const p = body(preview);
    expect(p).to.include({ targeted: 1, changed: 1 });
    const [row] = p.agents as Json[];
    expect(row?.desired_hash).to.have.length(64);
    expect(row?.desired_hash_after).to.have.length(64).and.not.equal(row?.desired_hash);
    expect((await call('GET', '/api/configs', undefined, null)).text).to.equal(before.text);
  });

  it('answers bad input with 400, an unknown name with 404, a taken name with 409', async () => {
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/api/configs', { ...base, name: 'Bad_Name' }, 400, 'DNS label'],
      ['POST', '/api/configs', { ...base, name: 'x', selector: 'env' }, 400, 'no operator'],
      ['POST', '/api/configs', { ...base, name: 'x', body: 'a: [' }, 400, 'does not parse as text/yaml'],
      [
        'POST',
        '/api/configs',
        { ...base, name: 'x', body: 'x'.repeat(1024 * 1024 + 1) },
        400,
        'at most 1048576',
      ],
      ['POST', '/api/configs', { ...base, name: 'x', colour: 'red' }, 400, 'unknown field'],
      ['POST', '/api/configs', base, 409, 'already exists'],
      ['PUT', '/api/configs/nope', { revision: 1 }, 404, 'no config nope'],
      ['GET', '/api/configs/nope/revisions', undefined, 404, 'no config nope'],
      ['POST', '/api/configs/exporters/revisions/99/restore', undefined, 404, 'no revision 99'],
    ];
    for (const [method, path, json, status, message] of cases) {
      const r = await call(method, path, json);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 200)}`).to.equal(status);
      expect(errorOf(r)).to.include(message);
    }
  });

  it('refuses writes without authentication (403), from a viewer (403) and with a bad token (401)', async () => {
    const anonymous = await call('POST', '/api/configs', { ...base, name: 'anon' }, null);
    expect(anonymous.status).to.equal(403);
    expect(errorOf(anonymous)).to.include('writes need authentication');
    const viewer = await call('POST', '/api/configs', { ...base, name: 'anon' }, viewerToken);
    expect(viewer.status).to.equal(403);
    expect(errorOf(viewer)).to.include('dashboard has role viewer');
    const bad = await call('GET', '/api/configs', undefined, 'not-a-token');
    expect(bad.status).to.equal(401);
    expect(bad.headers.get('www-authenticate')).to.match(/^Bearer /);
    expect((await call('GET', '/api/configs', undefined, viewerToken)).status).to.equal(200);
  });

  it('answers 404 for a name no config can have, a NUL byte included, without asking the database', async () => {
    for (const path of ['/api/configs/%00', '/api/configs/a%00b/revisions', '/api/configs/UPPER/agents'])
      expect((await call('GET', path)).status, path).to.equal(404);
    expect((await call('DELETE', '/api/configs/%00')).status).to.equal(404);
    expect((await call('PUT', '/api/configs/%00', base)).status).to.equal(404);
    expect((await request(`${app.urls.ui}/configs/%00`)).status).to.equal(404);
    expect((await request(`${app.urls.ui}/partials/configs/%00/agents`)).status).to.equal(404);
  });

  it('deletes a config, keeping its history for when the name comes back', async () => {
    const removed = await call('DELETE', '/api/configs/exporters?revision=5');
    expect(removed.status, removed.text).to.equal(200);
    expect(app.desired.current().configs.has('exporters')).to.equal(false);
    expect((await call('GET', '/api/configs/exporters', undefined, null)).status).to.equal(404);
    const again = await call('POST', '/api/configs', base);
    expect(body(again)).to.include({ current_revision: 6 });
  });
});

describe('remote config API without a writable source', () => {
  it('answers 503 without a database or a directory, and 409 when a directory is the source', async () => {
    const bare = await startApp({ config: { auth: { allow_unauthenticated_writes: true } } });
    const dir = mkdtempSync(join(tmpdir(), 'svc-configs-'));
    writeFileSync(join(dir, 'base.yaml'), "selector: 'env=prod'\nbody: 'a: 1'\n");
    const fromFiles = await startApp({
      config: { remote_config: { dir }, auth: { allow_unauthenticated_writes: true } },
    });
    try {
      const post = (a: App) =>
        request(`${a.urls.ui}/api/configs`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'x', selector: 'a=b', body: '' }),
        });
      const none = await post(bare);
      expect(none.status).to.equal(503);
      expect(errorOf(none)).to.include('database.host');
      const files = await post(fromFiles);
      expect(files.status).to.equal(409);
      expect(errorOf(files)).to.include(dir);
      const list = await request(`${fromFiles.urls.ui}/api/configs`);
      expect(list.json).to.deep.include({ source: 'directory', writable: false });
      expect((list.json as { configs: Json[] }).configs.map((c) => c.name)).to.deep.equal(['base']);
    } finally {
      await bare.stop();
      await fromFiles.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
