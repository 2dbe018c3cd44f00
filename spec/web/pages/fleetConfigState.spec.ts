import { expect } from 'chai';
import { startConfigFleet, type ConfigFleet } from './configsHarness.ts';
import { get } from './pagesHarness.ts';

const namesIn = (html: string) =>
  [...html.matchAll(/class="agent-name" href="[^"]*">([^<]*)</g)].map((m) => m[1]).sort();

describe('fleet page: the config_state filter and column', () => {
  let fleet: ConfigFleet;
  const url = (path: string) => `${fleet.app.urls.ui}${path}`;

  before(async () => {
    fleet = await startConfigFleet({ ui: { poll_interval: '2s' } });
  });
  after(() => fleet.stop());

  it('offers every config state in a Config select and filters the table by the one chosen', async () => {
    const all = await get(url('/'));
    for (const state of ['unmanaged', 'unsupported', 'pending', 'applying', 'applied', 'failed'])
      expect(all.body).to.include(`<option value="${state}">`);
    const failed = await get(url('/?config_state=failed'));
    expect(failed.status).to.equal(200);
    expect(namesIn(failed.body)).to.deep.equal(['bravo']);
    expect(failed.body).to.include('<option value="failed" selected>Failed</option>');
    const unmanaged = await get(url('/?config_state=unmanaged'));
    expect(namesIn(unmanaged.body)).to.deep.equal(['echo']);
  });

  it('keeps the state across polling and sorting, without repeating it as a hidden field', async () => {
    const { body } = await get(url('/?config_state=pending&sort=name'));
    expect(body).to.include('hx-get="/partials/agents?config_state=pending&amp;sort=name"');
    expect(body).to.include('href="/?config_state=pending&amp;sort=name&amp;order=desc"');
    expect(body).not.to.include('type="hidden" name="config_state"');
    const fragment = await get(url('/partials/agents?config_state=pending'));
    expect(namesIn(fragment.body)).to.deep.equal(['charlie']);
  });

  it('takes a list of states typed into the URL and keeps it selected', async () => {
    const { body } = await get(url('/?config_state=pending,failed'));
    expect(namesIn(body)).to.deep.equal(['bravo', 'charlie']);
    expect(body).to.include('<option value="pending,failed" selected>pending,failed</option>');
  });

  it('answers an unknown state with 400 and the parser’s message', async () => {
    const res = await get(url('/?config_state=lost'));
    expect(res.status).to.equal(400);
    expect(res.body).to.include('config_state must be one or more of');
  });

  it('shows a config state badge per row when configs target agents on the page', async () => {
    const { body } = await get(url('/'));
    expect(body).to.include('<th scope="col">Config</th>');
    expect(body).to.include('<span class="badge cfg-failed">Failed</span>');
    expect(body).to.include('<span class="badge cfg-applying">Applying</span>');
    const dev = await get(url('/?match=env%3Ddev'));
    expect(dev.body).not.to.include('<th scope="col">Config</th>');
  });
});
