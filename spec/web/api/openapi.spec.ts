// The OpenAPI document against the routes it describes: served at /api/openapi.json, every route of
// the API router in it and nothing else, every schema and reference resolvable, the config request
// fields exactly those the validator takes, and a response that strays from it caught.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { createServer } from 'node:http';
import { baseUrl, closeServer, listen } from '../../../src/io/listen.ts';
import { silentLogger } from '../../../src/io/logger.ts';
import { createNoConfigs } from '../../../src/io/remoteConfig/noConfigs.ts';
import { createApiRouter } from '../../../src/web/api/apiRouter.ts';
import type { ApiDeps } from '../../../src/web/api/apiDeps.ts';
import { openapiDocument } from '../../../src/web/api/openapi/openapiDocument.ts';
import { errorOf, request } from './apiClient.ts';
import { startApiServer, type ApiServer } from './apiServer.ts';
import { openapiProblem } from './openapiCheck.ts';

const document = openapiDocument({ version: '0.0.0' });
type Operation = { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> };
const paths = document.paths as Record<string, Record<string, Operation>>;

/** koa-router's `/api/agents/:id` as an OpenAPI template. */
const template = (path: string) => path.replace(/:([a-z]+)/gi, '{$1}');

describe('the OpenAPI document of the JSON API', () => {
  let api: ApiServer;
  before(async () => (api = await startApiServer()));
  after(() => api.close());

  it('is served at /api/openapi.json as OpenAPI 3.1 with the service version', async () => {
    const r = await request(`${api.url}/api/openapi.json`);
    expect(r.status).to.equal(200);
    expect(r.contentType).to.match(/^application\/json/);
    const served = r.json as typeof document;
    expect(served.openapi).to.equal('3.1.0');
    expect(served.info.version).to.equal('0.0.0');
    expect(served.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' });
    expect(served.components.securitySchemes.mutualTLS.type).to.equal('mutualTLS');
  });

  it('describes every route of the API router, and only those', () => {
    const router = createApiRouter({
      build: { version: '0', commit: '', go_version: '' },
      configs: createNoConfigs(),
      logger: silentLogger(),
    } as unknown as ApiDeps);
    const routed = router.stack
      .filter((layer) => layer.methods.length > 0 && layer.path !== '/api/agents/')
      .flatMap((layer) =>
        layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${template(String(layer.path))}`),
      );
    const documented = Object.entries(paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect([...new Set(routed)].sort()).to.deep.equal(documented.sort());
  });

  it('declares each path parameter and documents the errors of every operation', () => {
    for (const [path, ops] of Object.entries(paths))
      for (const [method, op] of Object.entries(ops)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        expect(declared, `${method} ${path}`).to.deep.equal(inPath);
        expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(['401', '403', '500']);
      }
  });

  it('compiles every schema it holds, references resolved', () => {
    const ajv = new Ajv2020({ strict: false, formats: { 'date-time': true } });
    ajv.addSchema(document, 'openapi.json');
    for (const name of Object.keys(document.components.schemas))
      expect(() => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` }), name).not.to.throw();
  });

  it('documents exactly the fields a config request may carry', async () => {
    const schemas = document.components.schemas as Record<string, { properties?: object }>;
    const fields = Object.keys(schemas.ConfigPreviewRequest?.properties ?? {});
    const sample: Record<string, unknown> = {
      name: 'x',
      selector: 'env=prod',
      body: 'a: 1',
      content_type: 'text/yaml',
      enabled: true,
      draft: false,
      revision: 1,
    };
    expect(fields.sort()).to.deep.equal(Object.keys(sample).sort());
    const post = (body: unknown) =>
      request(`${api.url}/api/configs/preview`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post(sample)).status).to.equal(200);
    const stray = await post({ ...sample, colour: 'red' });
    expect(stray.status).to.equal(400);
    expect(errorOf(stray)).to.equal('unknown field(s): colour');
  });

  it('fails the fetch of any spec that receives a response the document does not allow', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{"version":"1"}');
    });
    const stray = await listen(server, '127.0.0.1:0');
    try {
      const error = await fetch(`${baseUrl(stray)}/api/status`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).to.match(/GET \/api\/status → 200: body does not match the OpenAPI document/);
    } finally {
      await closeServer(stray);
    }
  });

  it('catches a response that strays from it', () => {
    const url = `${api.url}/api/status`;
    const status = {
      version: '1',
      commit: 'c',
      go_version: 'v',
      started_at: null,
      uptime_seconds: 1,
      agent_authentication: {
        required: false,
        tokens: false,
        client_certificates: false,
        agent_certificates: false,
      },
    };
    const fleet = {
      total: 1,
      connected: 1,
      disconnected: 0,
      healthy: 1,
      unhealthy: 0,
      health_unknown: 0,
      awaiting_full_state: 0,
    };
    const check = (json: unknown, over: Partial<{ status: number; url: string; contentType: string }> = {}) =>
      openapiProblem({ method: 'GET', url, status: 200, contentType: 'application/json', json, ...over });
    expect(check({ ...status, fleet })).to.equal(undefined);
    expect(check({ ...status, fleet: { ...fleet, extra: 1 } })).to.match(
      /must NOT have additional properties/,
    );
    expect(check({ ...status, uptime_seconds: '1', fleet })).to.match(/must be integer/);
    expect(check({ error: 'x' }, { status: 409 })).to.match(
      /status 409 is not documented for GET \/api\/status/,
    );
    expect(check({ ...status, fleet }, { contentType: 'text/html' })).to.match(/not JSON/);
    expect(check({ ok: true }, { url: `${api.url}/api/nowhere` })).to.match(/no operation/);
    expect(
      check({ error: 'no API endpoint at /api/nowhere' }, { url: `${api.url}/api/nowhere`, status: 404 }),
    ).to.equal(undefined);
  });
});
