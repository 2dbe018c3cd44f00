import { expect } from 'chai';
import { startConfigFleet, type ConfigFleet } from './configsHarness.ts';
import { contentSecurityPolicy } from '../../../src/web/pages/pageContext.ts';
import { get, isExternal, referencedUrls } from './pagesHarness.ts';

const diffRows = (html: string) =>
  [...html.matchAll(/<tr class="diff-(add|del|ctx)">.*?<\/tr>/g)].map(([row, kind]) => {
    const cells = [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => (m[1] ?? '').replace(/<[^>]*>/g, ''));
    return `${kind} ${cells.join('|')}`;
  });
const agentNames = (html: string) =>
  [...html.matchAll(/class="agent-name" href="\/agents\/[^"]*">([^<]*)</g)].map((m) => m[1]);

describe('config page (GET /configs/{name}, GET /partials/configs/{name}/agents)', () => {
  let fleet: ConfigFleet;
  const url = (path: string) => `${fleet.app.urls.ui}${path}`;

  before(async () => {
    fleet = await startConfigFleet({ ui: { poll_interval: '2s' } });
  });
  after(() => fleet.stop());

  it('shows the settings and the current body with the existing highlighting', async () => {
    const res = await get(url('/configs/base'));
    expect(res.status).to.equal(200);
    expect(res.body).to.include('<h1>base</h1><span class="badge enabled">Enabled</span>');
    expect(res.body).to.include('Revision 3 in force');
    expect(res.body).to.include('<dd class="mono">env=prod</dd>');
    expect(res.body).to.include('<span class="tok-key">receivers</span>');
    expect(res.body).to.include('<span class="tok-com"># main</span>');
  });

  it('lists every revision, newest first, with author, hash and a link to compare it with the one before', async () => {
    const { body } = await get(url('/configs/base'));
    const table = body.slice(
      body.indexOf('<h2>Revisions</h2>'),
      body.indexOf('<section class="panel panel-body" id="diff">'),
    );
    const revisions = [...table.matchAll(/<td class="mono">#(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(revisions).to.deep.equal([3, 2, 1]);
    expect(body).to.include('<span class="tag current">current</span>');
    expect(body).to.include('<td class="mono">file:base.yaml</td>');
    expect(body).to.include('<a href="/configs/base?from=2&amp;to=3#diff">Compare with previous</a>');
    expect(body).to.include('<a href="/configs/base?from=1&amp;to=2#diff">Compare with previous</a>');
  });

  it('compares the previous revision with the current one by default', async () => {
    const { body } = await get(url('/configs/base'));
    expect(body).to.include('Revision 2 → revision 3');
    expect(body).to.include('<option value="2" selected>#2</option>');
    expect(body).to.include('<option value="3" selected>#3 (current)</option>');
    expect(diffRows(body)).to.deep.equal([
      'ctx 1|1| receivers:',
      'ctx 2|2|   otlp: {}',
      'ctx 3|3| exporters:',
      'del 4||−  debug: {}',
      'del 5||−  otlp: {endpoint: &quot;collector:4317&quot;}',
      'add |4|+  otlp: {endpoint: &quot;collector:4317&quot;} # main',
    ]);
  });

  it('compares any two revisions chosen in the form, in either order', async () => {
    const res = await get(url('/configs/base?from=3&to=1'));
    expect(res.status).to.equal(200);
    expect(res.body).to.include('Revision 3 → revision 1');
    expect(diffRows(res.body).filter((r) => !r.startsWith('ctx'))).to.deep.equal([
      'del 4||−  otlp: {endpoint: &quot;collector:4317&quot;} # main',
      'add |4|+  debug: {}',
    ]);
    expect(res.body).to.match(/<form class="diff-form" method="get" action="\/configs\/base#diff"/);
  });

  it('answers a revision the config does not have with 400 and the reason in the page', async () => {
    const res = await get(url('/configs/base?from=9'));
    expect(res.status).to.equal(400);
    expect(res.body).to.include('<strong>Cannot compare</strong><span>there is no revision 9</span>');
    expect(res.body).to.include('<span class="tok-key">receivers</span>');
  });

  it('says so when a revision has no earlier one to compare with', async () => {
    const { body } = await get(url('/configs/edge'));
    expect(body).to.include('<span class="badge disabled">Disabled</span>');
    expect(body).to.include('Revision 1 is the first: there is no earlier revision to compare it with.');
  });

  it('lists the targeted agents with their config state, those that need attention first, linking each', async () => {
    const res = await get(url('/partials/configs/base/agents'));
    expect(res.status).to.equal(200);
    expect(res.body).to.match(
      /^<section class="panel" id="config-agents" hx-get="\/partials\/configs\/base\/agents" hx-trigger="every 2000ms"/,
    );
    expect(agentNames(res.body)).to.deep.equal(['bravo', 'charlie', 'foxtrot', 'delta', 'alpha']);
    for (const state of ['Failed', 'Pending', 'Applying', 'Unsupported', 'Applied'])
      expect(res.body).to.include(`>${state}</span>`);
    expect(res.body).to.include('exporter &quot;otlp&quot; cannot start');
    const bravo = fleet.agents.get('bravo')!.uid;
    expect(res.body).to.include(`<a class="agent-name" href="/agents/${bravo}">bravo</a>`);
    const page = await get(url('/configs/base'));
    expect(page.body).to.include('<section class="panel" id="config-agents"');
    expect(agentNames(page.body)).to.deep.equal(['bravo', 'charlie', 'foxtrot', 'delta', 'alpha']);
  });

  it('keeps one config state when asked, in the page, the fragment and its poll URL', async () => {
    const page = await get(url('/configs/base?config_state=failed'));
    expect(agentNames(page.body)).to.deep.equal(['bravo']);
    expect(page.body).to.include('hx-get="/partials/configs/base/agents?config_state=failed"');
    expect(page.body).to.include('<input type="hidden" name="config_state" value="failed">');
    const fragment = await get(url('/partials/configs/base/agents?config_state=applied'));
    expect(agentNames(fragment.body)).to.deep.equal(['alpha']);
    expect(fragment.body).to.include('<span>Applied only</span>');
    const bad = await get(url('/partials/configs/base/agents?config_state=lost'));
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include('config_state must be one of');
  });

  it('answers an unknown config with a 404 page in the style of the agent 404', async () => {
    const page = await get(url('/configs/nope'));
    expect(page.status).to.equal(404);
    expect(page.body).to.include('<div class="code-big">404</div><h1>Config not found</h1>');
    expect(page.body).to.include('<a class="button" href="/configs">Back to the configs</a>');
    const fragment = await get(url('/partials/configs/nope/agents'));
    expect(fragment.status).to.equal(404);
    expect(fragment.body).to.match(/^<section class="not-found" id="config-agents">/);
  });

  it('sends the same security headers as every other page, with no inline code or external URL', async () => {
    for (const path of [
      '/configs',
      '/configs/base',
      '/configs/base?from=1',
      '/partials/configs/base/agents',
    ]) {
      const res = await get(url(path));
      expect(res.headers.get('content-security-policy'), path).to.equal(contentSecurityPolicy);
      expect(res.headers.get('cache-control'), path).to.equal('no-store');
      expect(referencedUrls(res.body).filter(isExternal), path).to.deep.equal([]);
      expect(res.body, path).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="|\son[a-z]+="/);
    }
  });
});
