import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, get, isExternal, referencedUrls, type TestAgent } from './pagesHarness.ts';

describe('web UI security and self-containment', () => {
  let app: App;
  let agent: TestAgent;
  let pages: string[];

  before(async () => {
    app = await startApp();
    agent = await connectAgent(app, {
      identifying: { 'service.name': 'svc', homepage: 'https://example.com/x' },
      fields: {
        effectiveConfig: {
          configMap: {
            configMap: { 'c.yaml': { body: Buffer.from('endpoint: https://collector.example:4318\n') } },
          },
        },
      },
    });
    pages = [
      '/',
      '/partials/agents',
      '/?healthy=nope',
      `/agents/${agent.uid}`,
      `/partials/agents/${agent.uid}`,
      '/agents/unknown',
      '/partials/agents/unknown',
      '/status',
      '/partials/status',
      '/configs',
      '/partials/configs',
      '/configs/unknown',
      '/partials/configs/unknown/agents',
      '/jobs',
      '/partials/jobs',
      '/jobs/00000000-0000-4000-8000-000000000000',
      '/new-config',
      '/configs/unknown/edit',
      '/configs/unknown/rollout',
      '/configs/unknown/revisions/1/restore',
    ];
  });

  after(async () => {
    await agent.ws.close();
    await app.stop();
  });

  it("sends a Content-Security-Policy that allows only 'self' on every page and fragment", async () => {
    for (const path of pages) {
      const res = await get(`${app.urls.ui}${path}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).to.include("default-src 'self'");
      expect(csp, path).to.include("script-src 'self'");
      expect(csp, path).to.include("style-src 'self'");
      const sources = csp.split(';').flatMap((d) => d.trim().split(/\s+/).slice(1));
      expect(
        sources.every((s) => s === "'self'" || s === "'none'"),
        `${path}: ${csp}`,
      ).to.equal(true);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
    }
  });

  it('references no external URL and no inline script, style or event handler in any page', async () => {
    for (const path of pages) {
      const { body } = await get(`${app.urls.ui}${path}`);
      const external = referencedUrls(body).filter(isExternal);
      expect(external, path).to.deep.equal([]);
      expect(body, path).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(body, path).not.to.match(/<style\b/);
      expect(body, path).not.to.match(/\sstyle="/);
      expect(body, path).not.to.match(/\son[a-z]+="/);
    }
  });

  it('tells htmx not to inject its indicator styles or evaluate inline code', async () => {
    const { body } = await get(`${app.urls.ui}/`);
    const meta = /<meta name="htmx-config" content="([^"]*)">/.exec(body)?.[1]?.replaceAll('&quot;', '"');
    const config = JSON.parse(meta ?? '{}') as Record<string, unknown>;
    expect(config).to.include({ includeIndicatorStyles: false, allowEval: false, allowScriptTags: false });
  });

  it('serves the stylesheet, scripts, logo and favicon from /static with no external references', async () => {
    for (const [path, type] of [
      ['/static/css/app.css', 'text/css'],
      ['/static/js/app.js', 'text/javascript'],
      ['/static/js/theme.js', 'text/javascript'],
      ['/static/js/editor.js', 'text/javascript'],
      ['/static/img/logo.svg', 'image/svg+xml'],
      ['/static/favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await get(`${app.urls.ui}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.include(type);
      expect(res.headers.get('content-security-policy'), path).to.include("default-src 'self'");
      expect(referencedUrls(res.body).filter(isExternal), path).to.deep.equal([]);
    }
  });

  it('serves htmx from its installed npm package', async () => {
    const res = await get(`${app.urls.ui}/static/vendor/htmx.min.js`);
    expect(res.status).to.equal(200);
    const installed = readFileSync(fileURLToPath(import.meta.resolve('htmx.org/dist/htmx.min.js')), 'utf8');
    expect(res.body).to.equal(installed);
  });

  it('answers a matching ETag with 304 and unknown or escaping paths with 404', async () => {
    const first = await fetch(`${app.urls.ui}/static/css/app.css`);
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    expect(etag).to.match(/^"/);
    // node:http, not fetch: fetch turns a conditional request into Cache-Control: no-cache (Fetch spec).
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`${app.urls.ui}/static/css/app.css`, { headers: { 'If-None-Match': etag } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on('error', reject)
        .end();
    });
    expect(status).to.equal(304);
    for (const path of ['/static/nope.css', '/static/%2e%2e/package.json', '/static/..%2fpackage.json']) {
      expect((await get(`${app.urls.ui}${path}`)).status, path).to.equal(404);
    }
  });

  it('leaves /api routes to the JSON API', async () => {
    const res = await fetch(`${app.urls.ui}/api/status`);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    await res.arrayBuffer();
  });
});
