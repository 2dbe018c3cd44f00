import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import { errorOf, request } from './apiClient.ts';

describe('/api error responses', () => {
  let app: App;
  before(async () => {
    app = await startApp();
  });
  after(() => app.stop());

  for (const path of ['/api', '/api/', '/api/nope', '/api/agents/x/y', '/api/status/extra']) {
    it(`answers 404 JSON for the unknown API path ${path}`, async () => {
      const r = await request(`${app.urls.ui}${path}`);
      expect(r.status).to.equal(404);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.match(/no API endpoint/);
    });
  }

  const wrongMethods: [string, string, string][] = [
    ['POST', '/api/agents', 'GET'],
    ['DELETE', '/api/agents/0190b2a4-0000-7000-8000-000000000001', 'GET'],
    ['PUT', '/api/status', 'GET'],
    ['PUT', '/api/jobs', 'POST'],
  ];
  for (const [method, path, allowed] of wrongMethods) {
    it(`answers 405 JSON with Allow for ${method} ${path}`, async () => {
      const r = await request(`${app.urls.ui}${path}`, { method });
      expect(r.status).to.equal(405);
      expect(r.contentType).to.match(/^application\/json/);
      expect(errorOf(r)).to.match(new RegExp(`method ${method} is not allowed`));
      expect(r.headers.get('allow')).to.contain(allowed);
    });
  }
});
