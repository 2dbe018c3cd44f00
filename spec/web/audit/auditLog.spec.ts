// Every write of a scripted session appears in the audit log with its actor, in GET /api/audit and
// on the Audit page, with the filters; a refused write does not; the log is append-only in
// PostgreSQL (the database itself refuses to change an entry).

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { InstanceUid } from '../../../src/events/ids.ts';
import { agentMessage, newUid, postHttp } from '../../support/agentClient.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';

const admin = 'audit-spec-admin-token';
const viewer = 'audit-spec-viewer-token';

interface Entry {
  readonly action: string;
  readonly target: string;
  readonly actor: { kind: string; id: string; name: string };
  readonly via: string;
  readonly detail: string;
}

describe('the audit log (one service, PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let app: App;
  const call = async (method: string, path: string, body?: unknown, token = admin) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    db = await createTestDatabase();
    app = await startApp({
      config: {
        database: db.config,
        auth: { api_tokens: [apiToken('ops', admin, 'admin'), apiToken('watcher', viewer, 'viewer')] },
      },
    });
  });
  after(async () => {
    await app?.stop();
    await db?.drop();
  });

  it('lists every write of a session with its actor, newest first, and no refused one', async () => {
    const expected: [string, string][] = [];
    const write = async (action: string, target: string, method: string, path: string, body?: unknown) => {
      const answer = await call(method, path, body);
      if (answer.status >= 200 && answer.status < 300) expected.push([action, target]);
      return answer;
    };
    const body = (n: number) => `receivers:\n  otlp:\n    protocols: {}\n# ${n}\n`;
    expect(
      (
        await write('config.create', 'edge', 'POST', '/api/configs', {
          name: 'edge',
          selector: 'env=prod',
          body: body(1),
        })
      ).status,
    ).to.equal(201);
    expect(
      (await write('config.update', 'edge', 'PUT', '/api/configs/edge', { body: body(2), revision: 1 }))
        .status,
    ).to.equal(200);
    expect(
      (
        await write('config.draft', 'edge', 'PUT', '/api/configs/edge', {
          body: body(3),
          revision: 2,
          draft: true,
        })
      ).status,
    ).to.equal(200);
    expect(
      (await write('config.restore', 'edge', 'POST', '/api/configs/edge/revisions/1/restore', {})).status,
    ).to.equal(200);
    const refused = await call('PUT', '/api/configs/edge', { body: body(9) }, viewer);
    expect(refused.status).to.equal(403);
    const job = await write('job.create', '', 'POST', '/api/jobs', {
      filter: 'env=none',
      action: 'restart',
      submitted_by: 'spec',
    });
    expect(job.status).to.equal(201);
    const id = String(job.json.id);
    expected[expected.length - 1] = ['job.create', id];
    for (const command of ['arm', 'pause', 'resume', 'cancel'])
      await write(`job.${command}`, id, 'POST', `/api/jobs/${id}/${command}`, {});
    expect(expected.map(([a]) => a)).to.include.members(['job.arm', 'job.cancel']);
    const uid = newUid();
    expect((await postHttp(app.urls.opamp, agentMessage(uid))).status).to.equal(200);
    await app.credentials.bind(uid as InstanceUid, { kind: 'token', name: 'enroll' }, 1);
    expect((await write('agent.revoke', uid, 'POST', `/api/agents/${uid}/revoke`)).status).to.equal(200);

    const listed = await call('GET', '/api/audit', undefined, viewer);
    expect(listed.status).to.equal(200);
    const entries = listed.json.entries as Entry[];
    expect(entries.map((e) => [e.action, e.target])).to.deep.equal([...expected].reverse());
    for (const e of entries) {
      expect(e.actor).to.deep.equal({ kind: 'token', id: 'ops', name: 'ops' });
      expect(e.via).to.equal('api');
    }
    expect(entries.find((e) => e.action === 'config.restore')?.detail).to.equal('revision 1');
  });

  it('filters by who, what, which config or job, and when', async () => {
    const only = async (query: string) =>
      ((await call('GET', `/api/audit?${query}`)).json.entries as Entry[]).map((e) => e.action);
    expect(await only('action=config.update')).to.deep.equal(['config.update']);
    expect(await only('target=edge')).to.deep.equal([
      'config.restore',
      'config.draft',
      'config.update',
      'config.create',
    ]);
    expect(await only('who=OPS&action=config.create')).to.deep.equal(['config.create']);
    expect(await only('who=someone-else')).to.deep.equal([]);
    expect(await only('until=2000-01-01')).to.deep.equal([]);
    expect((await call('GET', '/api/audit?action=config.burn')).status).to.equal(400);
    const page = await fetch(`${app.urls.ui}/audit?target=edge`, {
      headers: { Authorization: `Bearer ${viewer}` },
    });
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html.match(/data-audit-action="config\.[a-z]+"/g)).to.have.length(4);
    expect(html).to.include('ops');
  });

  it('shows the log to identities only, and the database refuses to change an entry', async () => {
    expect((await fetch(`${app.urls.ui}/api/audit`)).status).to.equal(403);
    const client = await db.client();
    try {
      const attempt = await client.query("UPDATE audit_log SET actor_name = 'someone else'").then(
        () => 'changed',
        (error: Error) => error.message,
      );
      expect(attempt).to.include('append-only');
    } finally {
      await client.end();
    }
  });
});
