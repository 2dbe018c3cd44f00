import { expect } from 'chai';
import { connected } from '../../support/events.ts';
import { uidOf } from '../../support/agentFixture.ts';
import { request } from './apiClient.ts';
import { startApiServer, type ApiServer } from './apiServer.ts';

describe('API request observation', () => {
  let server: ApiServer;
  const seen: [string, string, number][] = [];
  before(async () => {
    server = await startApiServer({
      observeRequest: (route, method, code, seconds) => {
        expect(seconds).to.be.a('number').and.at.least(0);
        seen.push([route, method, code]);
      },
    });
    server.bus.publish(connected(uidOf(1), 1000));
  });
  after(() => server.close());
  beforeEach(() => {
    seen.length = 0;
  });

  it('reports the five instrumented routes by template, never by concrete id', async () => {
    await request(`${server.url}/api/agents`);
    await request(`${server.url}/api/agents/${uidOf(1)}`);
    await request(`${server.url}/api/status`);
    await request(`${server.url}/api/attributes`);
    await request(`${server.url}/api/attributes/values?key=a`);
    expect(seen).to.deep.equal([
      ['/api/agents', 'GET', 200],
      ['/api/agents/{id}', 'GET', 200],
      ['/api/status', 'GET', 200],
      ['/api/attributes', 'GET', 200],
      ['/api/attributes/values', 'GET', 200],
    ]);
  });

  it('reports the final status of failed requests', async () => {
    await request(`${server.url}/api/agents?limit=0`);
    await request(`${server.url}/api/agents/${uidOf(2)}`);
    await request(`${server.url}/api/attributes/values`);
    expect(seen).to.deep.equal([
      ['/api/agents', 'GET', 400],
      ['/api/agents/{id}', 'GET', 404],
      ['/api/attributes/values', 'GET', 400],
    ]);
  });

  it('does not report other API paths', async () => {
    await request(`${server.url}/api/nope`);
    await request(`${server.url}/api/agents/`);
    await request(`${server.url}/api/jobs`, { method: 'POST', body: '{}' });
    await request(`${server.url}/api/agents`, { method: 'POST' });
    expect(seen).to.deep.equal([]);
  });

  it('keeps answering when the observer throws', async () => {
    const failing = await startApiServer({
      observeRequest: () => {
        throw new Error('metrics broke');
      },
    });
    try {
      expect((await request(`${failing.url}/api/status`)).status).to.equal(200);
    } finally {
      await failing.close();
    }
  });
});
