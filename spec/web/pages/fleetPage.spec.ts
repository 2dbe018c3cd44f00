import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import { connectAgent, failingStore, get, startSideUi, type TestAgent } from './pagesHarness.ts';

const rowCount = (html: string) => (html.match(/<tr><td><span class="badge/g) ?? []).length;
const namesIn = (html: string) =>
  [...html.matchAll(/class="agent-name" href="[^"]*">([^<]*)</g)].map((m) => m[1]);

describe('fleet page and fragment (GET /, GET /partials/agents)', () => {
  let app: App;
  const agents: TestAgent[] = [];

  before(async () => {
    app = await startApp({ config: { ui: { poll_interval: '2s' } } });
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'bravo', 'service.version': '1.10.0' },
        nonIdentifying: { 'host.name': 'h2', env: 'prod' },
        healthy: true,
      }),
    );
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'alpha', 'service.version': '1.9.0' },
        nonIdentifying: { env: 'dev' },
        healthy: false,
      }),
    );
    agents.push(
      await connectAgent(app, {
        identifying: { 'service.name': 'charlie' },
        nonIdentifying: { env: 'prod' },
      }),
    );
  });

  after(async () => {
    for (const a of agents) await a.ws.close();
    await app.stop();
  });

  it('renders every agent with name, host, version, status badge, attribute chips and a detail link', async () => {
    const res = await get(`${app.urls.ui}/`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(rowCount(res.body)).to.equal(3);
    expect(res.body).to.include('>bravo</a><div class="agent-host">h2</div>');
    expect(res.body).to.include('<span class="badge healthy">Healthy</span>');
    expect(res.body).to.include('<span class="badge unhealthy">Unhealthy</span>');
    expect(res.body).to.include('<span class="badge unknown">Unknown</span>');
    expect(res.body).to.include(`href="/agents/${agents[0]!.uid}"`);
    expect(res.body).to.include('href="/?match=env%3Dprod"');
    expect(res.body).to.include('Showing 1–3 of 3');
  });

  it('polls the fragment every ui.poll_interval with the current filter and sort query', async () => {
    const query = 'connected=true&match=env%3Dprod&sort=name&order=desc';
    for (const path of ['/', '/partials/agents']) {
      const res = await get(`${app.urls.ui}${path}?${query}`);
      expect(res.body).to.include(`hx-get="/partials/agents?${query.replaceAll('&', '&amp;')}"`);
      expect(res.body).to.include('hx-trigger="every 2000ms"');
    }
  });

  it('filters with the API filter language and shows only matching agents', async () => {
    const res = await get(`${app.urls.ui}/?match=env%3Dprod&healthy=`);
    expect(res.status).to.equal(200);
    expect(namesIn(res.body).sort()).to.deep.equal(['bravo', 'charlie']);
    expect(res.body).to.include('Showing 1–2 of 2');
    expect(res.body).to.include('<a class="chip filter" href="/"');
  });

  it('sorts the whole filtered set before paging', async () => {
    const first = await get(`${app.urls.ui}/partials/agents?sort=name&order=asc&limit=2`);
    expect(namesIn(first.body)).to.deep.equal(['alpha', 'bravo']);
    expect(first.body).to.include('Showing 1–2 of 3');
    const second = await get(`${app.urls.ui}/partials/agents?sort=name&order=asc&limit=2&offset=2`);
    expect(namesIn(second.body)).to.deep.equal(['charlie']);
    const desc = await get(`${app.urls.ui}/partials/agents?sort=version&order=desc`);
    expect(namesIn(desc.body)).to.deep.equal(['bravo', 'alpha', 'charlie']);
    const status = await get(`${app.urls.ui}/partials/agents?sort=status`);
    expect(namesIn(status.body)).to.deep.equal(['alpha', 'charlie', 'bravo']);
  });

  it('shows an invalid filter as a message in the page with status 400, not a crash', async () => {
    for (const path of ['/', '/partials/agents']) {
      const res = await get(`${app.urls.ui}${path}?healthy=maybe`);
      expect(res.status).to.equal(400);
      expect(res.body).to.include('Invalid filter');
      expect(res.body).to.include('healthy must be true or false');
    }
    const regex = await get(`${app.urls.ui}/?match=${encodeURIComponent('env=~(')}`);
    expect(regex.status).to.equal(400);
    expect(regex.body).to.include('Invalid filter');
    const sort = await get(`${app.urls.ui}/?sort=colour`);
    expect(sort.status).to.equal(400);
    expect(sort.body).to.include('sort must be one of');
  });

  it('says why the table is empty when no agent matches', async () => {
    const res = await get(`${app.urls.ui}/partials/agents?match=env%3Dnowhere`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include('No agents match these filters');
  });

  it('keeps filters in sort header links and pagination links', async () => {
    const res = await get(`${app.urls.ui}/?match=env%3Dprod&limit=1&sort=name&order=asc`);
    expect(res.body).to.include('href="/?match=env%3Dprod&amp;limit=1&amp;sort=name&amp;order=desc"');
    expect(res.body).to.include(
      'href="/?match=env%3Dprod&amp;limit=1&amp;sort=name&amp;order=asc&amp;offset=1" rel="next"',
    );
  });

  it('shows the Database unavailable banner above the table when the store merge fails', async () => {
    const side = await startSideUi(app, failingStore);
    try {
      for (const path of ['/', '/partials/agents']) {
        const res = await get(`${side.url}${path}`);
        expect(res.status).to.equal(200);
        expect(res.body).to.include('Database unavailable');
        expect(res.body.indexOf('Database unavailable')).to.be.lessThan(res.body.indexOf('<table'));
        expect(rowCount(res.body)).to.equal(3);
      }
      const healthy = await get(`${app.urls.ui}/`);
      expect(healthy.body).not.to.include('Database unavailable');
    } finally {
      await side.close();
    }
  });

  it('answers an unexpected read failure with a logged 500 page, not a stack trace', async () => {
    const broken = {
      listPage: () => Promise.reject(new Error('boom')),
      listAll: () => Promise.reject(new Error('boom')),
      getAgent: () => Promise.reject(new Error('boom')),
    };
    const side = await startSideUi(app, failingStore, broken);
    try {
      const res = await get(`${side.url}/partials/agents`);
      expect(res.status).to.equal(500);
      expect(res.body).to.include('Something went wrong');
      expect(res.body).not.to.include('boom');
      expect(side.logs.some((l) => l.includes('ui page failed') && l.includes('boom'))).to.equal(true);
    } finally {
      await side.close();
    }
  });
});

describe('fleet page with no agents', () => {
  it('says that no agent has connected yet', async () => {
    const app = await startApp();
    try {
      const res = await get(`${app.urls.ui}/`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include('No agents yet');
      expect(res.body).to.include('hx-trigger="every 5000ms"');
    } finally {
      await app.stop();
    }
  });
});
