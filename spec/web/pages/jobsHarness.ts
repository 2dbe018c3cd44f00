// Helpers for specs of the jobs pages: one service with a real PostgreSQL and the project's
// simulator agents, API tokens for an admin and a viewer, and the steps that bring jobs into the
// states the pages show (a rollout that succeeds, one that stays running between its stages, one
// whose gate pauses it).

import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { createFleet, type Fleet, type FleetOptions } from '../../../tools/simulate/fleet.ts';
import { eventually } from '../../persistence/eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { startApp } from '../../support/startApp.ts';
import { apiToken } from '../../support/apiTokens.ts';
import { steadyFleet } from '../../support/steadyFleet.ts';

export const adminToken = 'jobs-pages-admin';
export const viewerToken = 'jobs-pages-viewer';

const fleetDefaults = steadyFleet({ attributes: 6, restartMs: 50 });

type Json = Record<string, unknown>;

export interface JobsService {
  readonly app: App;
  readonly fleet: Fleet;
  readonly db: TestDatabase;
  /** A JSON API call, as the admin unless `token` says otherwise (null: anonymous). */
  api(
    method: string,
    path: string,
    body?: unknown,
    token?: string | null,
  ): Promise<{ status: number; json: Json }>;
  createJob(action: string, actionConfig?: Json, filter?: string): Promise<string>;
  /** Waits for the job to reach `status` and answers its JSON view. */
  until(id: string, status: string): Promise<Json>;
  /** Creates a config, waits until every agent applied revision 1, and saves revision 2 as a draft. */
  configWithDraft(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface JobsServiceOptions {
  readonly config?: Record<string, unknown>;
  readonly fleet?: Partial<FleetOptions>;
}

export async function startJobsService(options: JobsServiceOptions = {}): Promise<JobsService> {
  const db: TestDatabase = await createTestDatabase();
  const auth = {
    api_tokens: [apiToken('operator', adminToken, 'admin'), apiToken('watcher', viewerToken, 'viewer')],
    ...(options.config?.auth as Json | undefined),
  };
  const app = await startApp({
    config: {
      ui: { poll_interval: '300ms' },
      ...options.config,
      database: db.config,
      auth,
      fleet: { heartbeat_interval: '5s' },
    },
  });
  const agents = { ...fleetDefaults, ...options.fleet };
  const fleet = createFleet({ ...agents, url: app.urls.opamp });
  await fleet.start();
  await eventually(() => Promise.resolve(app.registry.size >= agents.agents), 'the agents to register');

  const api: JobsService['api'] = async (method, path, body, token = adminToken) => {
    const res = await fetch(`${app.urls.ui}${path}`, {
      method,
      headers: {
        'Content-Type': 'application/json',
        ...(token !== null && { Authorization: `Bearer ${token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  };
  const jobOf = async (id: string) => (await api('GET', `/api/jobs/${id}?limit=1000`)).json;
  const settled = (name: string, revision: number) =>
    eventually(async () => {
      const { json } = await api('GET', `/api/configs/${name}`);
      const counts = json.agents as Record<string, number> | undefined;
      return json.current_revision === revision && counts?.applied === agents.agents;
    }, `${name} #${revision} applied by every agent`);

  return {
    app,
    fleet,
    db,
    api,
    async createJob(action, actionConfig = {}, filter = 'connected=true') {
      const r = await api('POST', '/api/jobs', {
        filter,
        action,
        action_config: actionConfig,
        submitted_by: 'spec',
      });
      expect(r.status, JSON.stringify(r.json)).to.equal(201);
      return r.json.id as string;
    },
    until: (id, status) =>
      eventually(async () => {
        const job = await jobOf(id);
        return job.status === status && job;
      }, `job ${id} to be ${status}`),
    async configWithDraft(name) {
      const created = await api('POST', '/api/configs', {
        name,
        selector: 'service.version=~".+"',
        body: 'a: 1\n',
      });
      expect(created.status, JSON.stringify(created.json)).to.equal(201);
      if ((options.fleet?.configFailRate ?? 0) === 0) await settled(name, 1);
      const draft = await api('PUT', `/api/configs/${name}`, { revision: 1, body: 'a: 2\n', draft: true });
      expect(draft.json).to.include({ draft_revision: 2 });
    },
    async stop() {
      await fleet.stop();
      await app.stop();
      await db.drop();
    },
  };
}

/** Arms a job through the API and answers its JSON view. */
export async function arm(service: JobsService, id: string): Promise<Json> {
  const r = await service.api('POST', `/api/jobs/${id}/arm`, {});
  expect(r.status, JSON.stringify(r.json)).to.equal(200);
  return r.json;
}

export interface PageAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** A page or fragment of the UI as the admin, a viewer (`viewerToken`) or anonymous (null). */
export async function page(
  service: JobsService,
  path: string,
  token: string | null = null,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<PageAnswer> {
  const res = await fetch(`${service.app.urls.ui}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(token !== null && { Authorization: `Bearer ${token}` }), ...init.headers },
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** A job page button as htmx sends it: POST with HX-Request, from this origin. */
export const press = (
  service: JobsService,
  path: string,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<PageAnswer> =>
  page(service, path, token, {
    method: 'POST',
    headers: { 'HX-Request': 'true', Origin: service.app.urls.ui, ...headers },
  });

/** The text of some HTML: each tag a space, entities of the templates decoded, spaces collapsed. */
export const text = (html: string): string =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replace(/\s+/g, ' ')
    .trim();
