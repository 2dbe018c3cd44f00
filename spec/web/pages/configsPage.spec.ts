import { expect } from 'chai';
import type { App } from '../../../src/app.ts';
import { startApp } from '../../support/startApp.ts';
import { startConfigFleet, type ConfigFleet } from './configsHarness.ts';
import { get } from './pagesHarness.ts';

/** The text of each cell of the table row whose name link is `name`. */
function rowCells(html: string, name: string): string[] {
  const row =
    new RegExp(`<tr><td><a class="agent-name" href="/configs/${name}">.*?</tr>`).exec(html)?.[0] ?? '';
  return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => (m[1] ?? '').replace(/<[^>]*>/g, ''));
}

describe('configs page and fragment (GET /configs, GET /partials/configs)', () => {
  let fleet: ConfigFleet;

  before(async () => {
    fleet = await startConfigFleet({ ui: { poll_interval: '2s' } });
  });
  after(() => fleet.stop());

  it('lists each config with selector, current revision, author and its agents by state', async () => {
    const res = await get(`${fleet.app.urls.ui}/configs`);
    expect(res.status).to.equal(200);
    const [name, selector, revision, updated, ...counts] = rowCells(res.body, 'base');
    expect(name).to.equal('base');
    expect(selector).to.equal('env=prod');
    expect(revision).to.equal('#3');
    expect(updated)
      .to.match(/ago|just now/)
      .and.to.include('file:base.yaml');
    // targeted, pending, applying, applied, failed, rolled back, incompatible, unsupported
    expect(counts).to.deep.equal(['5', '1', '1', '1', '1', '0', '0', '1']);
    expect(res.body).to.include('<a href="/configs/base?config_state=failed#agents">1</a>');
    expect(rowCells(res.body, 'edge').slice(0, 1)).to.deep.equal(['edge Disabled']);
    expect(rowCells(res.body, 'edge').slice(4)).to.deep.equal(['0', '0', '0', '0', '0', '0', '0', '0']);
  });

  it('names the source, why the API cannot write to it, and the files that do not parse', async () => {
    const { body } = await get(`${fleet.app.urls.ui}/configs`);
    expect(body).to.include('<span class="tag">Directory</span>');
    expect(body).to.include(`configs are read from remote_config.dir (${fleet.dir})`);
    expect(body).to.match(
      /<div class="banner error" role="alert"><strong>broken.yaml is not in use<\/strong>/,
    );
    expect(body).to.include('broken.yaml is not valid YAML');
  });

  it('polls the fragment every ui.poll_interval, and the fragment is what the page embeds', async () => {
    const page = await get(`${fleet.app.urls.ui}/configs`);
    const fragment = await get(`${fleet.app.urls.ui}/partials/configs`);
    expect(fragment.status).to.equal(200);
    expect(fragment.body).to.match(
      /^<section id="configs" hx-get="\/partials\/configs" hx-trigger="every 2000ms" hx-swap="outerHTML"/,
    );
    const embedded = /<section id="configs".*<\/section>/s.exec(page.body)?.[0];
    expect(embedded?.replace(/\d+s ago|just now/g, '')).to.equal(
      fragment.body.replace(/\d+s ago|just now/g, ''),
    );
  });

  it('puts Configs in the top navigation, marked on its own page only', async () => {
    const configs = await get(`${fleet.app.urls.ui}/configs`);
    expect(configs.body).to.include('<a href="/configs" aria-current="page">Configs</a>');
    const home = await get(`${fleet.app.urls.ui}/`);
    expect(home.body).to.include('<a href="/configs">Configs</a>');
  });
});

describe('configs page without a source', () => {
  let app: App;

  before(async () => {
    app = await startApp();
  });
  after(() => app.stop());

  it('says that configs need a source and how to give them one', async () => {
    const res = await get(`${app.urls.ui}/configs`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include('<span class="tag">None</span>');
    expect(res.body).to.include('<strong>No configs yet</strong>');
    expect(res.body).to.include('set database.host to write them through the API');
  });
});
