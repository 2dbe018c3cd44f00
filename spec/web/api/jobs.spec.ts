import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import type { Job, JobStore, NewJob } from '../../../src/projections/jobs/jobStore.ts';
import { maxJobBodyBytes } from '../../../src/web/api/jobRoutes.ts';
import { startApp } from '../../support/startApp.ts';
import { errorOf, request } from './apiClient.ts';
import { startApiServer, type ApiServer } from './apiServer.ts';

const validJob = { filter: 'match=env=prod', action: 'restart', submitted_by: 'ops@example.com' };

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  request(`${url}/api/jobs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });

/** A JobStore collaborator kept in memory; `failing` makes create reject like a backend error. */
class MemoryJobStore implements JobStore {
  readonly jobs: Job[] = [];
  failing = false;
  create(job: NewJob): Promise<Job> {
    if (this.failing) return Promise.reject(new Error('connection refused'));
    const created: Job = {
      ...job,
      id: `00000000-0000-4000-8000-${String(this.jobs.length + 1).padStart(12, '0')}`,
      status: 'planned',
      target_mode: null,
      created_at: '2026-01-01T00:00:00.000Z',
      armed_at: null,
      dispatch_at: null,
      cancelled_at: null,
    };
    this.jobs.push(created);
    return Promise.resolve(created);
  }
}

describe('POST /api/jobs', () => {
  describe('with persistence off (running service, database.host unset)', () => {
    let app: App;
    before(async () => {
      app = await startApp();
    });
    after(() => app.stop());

    it('answers 503 for a valid job', async () => {
      const r = await post(app.urls.ui, JSON.stringify(validJob));
      expect(r.status).to.equal(503);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.match(/database\.host is not set/);
    });

    it('answers 503 before looking at the body', async () => {
      expect((await post(app.urls.ui, '{not json')).status).to.equal(503);
      expect((await post(app.urls.ui, 'x'.repeat(maxJobBodyBytes + 1))).status).to.equal(503);
    });
  });

  describe('with a job store', () => {
    let server: ApiServer;
    const store = new MemoryJobStore();
    before(async () => {
      server = await startApiServer({ jobStore: store });
    });
    after(() => server.close());
    beforeEach(() => {
      store.failing = false;
    });

    it('creates a planned job and answers 201 with it', async () => {
      const r = await post(
        server.url,
        JSON.stringify({ ...validJob, action_config: { reconnect_timeout: '30s' } }),
      );
      expect(r.status).to.equal(201);
      expect(r.contentType).to.match(/^application\/json/);
      expect(r.json).to.deep.include({
        ...validJob,
        action_config: { reconnect_timeout: '30s' },
        status: 'planned',
        target_mode: null,
        armed_at: null,
      });
      expect(store.jobs.at(-1)?.filter).to.equal('match=env=prod');
    });

    it('stores an omitted action_config as an empty object', async () => {
      const r = await post(server.url, JSON.stringify(validJob));
      expect(r.status).to.equal(201);
      expect(store.jobs.at(-1)?.action_config).to.deep.equal({});
    });

    const invalid: [string, string, RegExp][] = [
      ['malformed JSON', '{"filter": ', /not valid JSON/],
      ['an empty body', '', /not valid JSON/],
      ['a JSON array', '[]', /must be a JSON object/],
      ['JSON null', 'null', /must be a JSON object/],
      ['a missing filter', JSON.stringify({ action: 'restart', submitted_by: 'a' }), /filter is required/],
      ['an empty filter', JSON.stringify({ ...validJob, filter: '  ' }), /filter must not be empty/],
      ['a missing action', JSON.stringify({ filter: 'x', submitted_by: 'a' }), /action is required/],
      ['an empty action', JSON.stringify({ ...validJob, action: '' }), /action must not be empty/],
      [
        'a missing submitted_by',
        JSON.stringify({ filter: 'x', action: 'restart' }),
        /submitted_by is required/,
      ],
      [
        'a numeric submitted_by',
        JSON.stringify({ ...validJob, submitted_by: 7 }),
        /submitted_by must be a string/,
      ],
      [
        'an array action_config',
        JSON.stringify({ ...validJob, action_config: [] }),
        /action_config must be a JSON object/,
      ],
      [
        'a string action_config',
        JSON.stringify({ ...validJob, action_config: 'x' }),
        /action_config must be a JSON object/,
      ],
      [
        'a null action_config',
        JSON.stringify({ ...validJob, action_config: null }),
        /action_config must be a JSON object/,
      ],
    ];
    for (const [title, body, message] of invalid) {
      it(`answers 400 JSON for ${title}`, async () => {
        const before = store.jobs.length;
        const r = await post(server.url, body);
        expect(r.status).to.equal(400);
        expect(r.contentType).to.match(/^application\/json/);
        expect(errorOf(r)).to.match(message);
        expect(store.jobs.length).to.equal(before);
      });
    }

    it('accepts a body of exactly 64 KiB', async () => {
      const json = JSON.stringify(validJob);
      const r = await post(server.url, json + ' '.repeat(maxJobBodyBytes - json.length));
      expect(r.status).to.equal(201);
    });

    it('answers 413 for a declared body over 64 KiB', async () => {
      const json = JSON.stringify(validJob);
      const r = await post(server.url, json + ' '.repeat(maxJobBodyBytes - json.length + 1));
      expect(r.status).to.equal(413);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.match(/larger than 65536 bytes/);
    });

    it('answers 413 for a streamed body that grows past 64 KiB, and keeps serving', async () => {
      const chunk = new TextEncoder().encode(' '.repeat(16 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const r = await request(`${server.url}/api/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
        duplex: 'half',
      });
      expect(r.status).to.equal(413);
      expect((await post(server.url, JSON.stringify(validJob))).status).to.equal(201);
    });

    it('answers 500 JSON when the store fails', async () => {
      store.failing = true;
      const r = await post(server.url, JSON.stringify(validJob));
      expect(r.status).to.equal(500);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.equal('could not create the job');
    });
  });
});
