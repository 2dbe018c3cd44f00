// The config editor's routes over real HTTP, against a service with PostgreSQL and simulator agents
// (host.name sim-host-0 … sim-host-5): the form only for admins, the live check (targeted agents,
// hashes that change, the line of a parse error, the diff against the revision in force), saves and
// drafts through the catalog, a lost race that says what changed, and writes refused unless they
// come from this UI.

import { expect } from 'chai';
import { agentMessage, description, newUid, postHttp } from '../../support/agentClient.ts';
import { scrape } from '../../telemetry/scrape.ts';
import { isExternal, referencedUrls } from './pagesHarness.ts';
import {
  adminToken,
  page,
  startJobsService,
  text,
  viewerToken,
  type JobsService,
  type PageAnswer,
} from './jobsHarness.ts';

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('config editor (GET/POST /new-config, /configs/{name}/edit, /partials/configs/check)', function () {
  this.timeout(90_000);
  let service: JobsService;

  /** A post as htmx sends the editor's form, as the admin unless `token` says otherwise. */
  const post = (
    path: string,
    fields: Record<string, string>,
    token: string | null = adminToken,
    headers = {},
  ) =>
    fetch(`${service.app.urls.ui}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'HX-Request': 'true',
        Origin: service.app.urls.ui,
        ...(token !== null && { Authorization: `Bearer ${token}` }),
        ...headers,
      },
      body: form(fields),
    }).then(async (res): Promise<PageAnswer> => ({
      status: res.status,
      headers: res.headers,
      body: await res.text(),
    }));
  const previewed = (answer: PageAnswer, which: string) =>
    new RegExp(`data-preview="${which}">(\\d+)<`).exec(answer.body)?.[1];
  const config = async (name: string) => (await service.api('GET', `/api/configs/${name}`)).json;

  before(async () => {
    service = await startJobsService();
  });
  after(() => service.stop());

  describe('who gets the form', () => {
    it('shows an admin the form, with line numbers beside the body', async () => {
      const answer = await page(service, '/new-config', adminToken);
      expect(answer.status).to.equal(200);
      expect(answer.body).to.match(/<form class="editor-form" id="config-form"/);
      expect(answer.body).to.include('<textarea class="mono" name="body"');
      expect(answer.body).to.match(/<pre class="gutter"[^>]*>1<\/pre>/);
    });

    for (const [who, token] of [
      ['a viewer', viewerToken],
      ['an anonymous reader', null],
    ] as const)
      it(`shows ${who} the page without a form`, async () => {
        const answer = await page(service, '/new-config', token);
        expect(answer.status).to.equal(403);
        expect(answer.body).not.to.include('<form');
        expect(text(answer.body)).to.include('Editing configs needs an admin identity');
      });
  });

  describe('the live check', () => {
    it('counts the agents a selector targets, and changes as the selector does', async () => {
      const one = await post('/partials/configs/check', {
        name: 'x',
        selector: 'host.name="sim-host-0"',
        enabled: 'true',
        body: 'a: 1\n',
      });
      expect(one.status).to.equal(200);
      expect(previewed(one, 'targeted')).to.equal('1');
      const two = await post('/partials/configs/check', {
        name: 'x',
        selector: 'host.name=~"sim-host-[01]"',
        enabled: 'true',
        body: 'a: 1\n',
      });
      expect([previewed(two, 'targeted'), previewed(two, 'changed')]).to.deep.equal(['2', '2']);
    });

    it('counts apart the agents that lack a component type the body names', async () => {
      const uid = newUid();
      const components = { exporters: { subComponentMap: { debug: {} } } };
      await postHttp(
        service.app.urls.opamp,
        agentMessage(uid, {
          capabilities: 0x1 | 0x2 | 0x4000,
          agentDescription: description({ 'host.name': 'lacks-kafka' }),
          availableComponents: { hash: Buffer.from('ab', 'hex'), components },
        }),
      );
      const check = (body: string) =>
        post('/partials/configs/check', {
          name: 'x',
          selector: 'host.name="lacks-kafka"',
          enabled: 'true',
          body,
        });
      const lacking = await check('exporters: {kafka: {}, debug: {}}\n');
      expect([previewed(lacking, 'targeted'), previewed(lacking, 'incompatible')]).to.deep.equal(['1', '1']);
      expect(text(lacking.body)).to.include('Lack a component type');
      const able = await check('exporters: {debug: {}}\n');
      expect(previewed(able, 'incompatible'), 'no tile when none lack one').to.equal(undefined);
    });

    it('names the line of a parse error, and still counts the selector', async () => {
      const answer = await post('/partials/configs/check', {
        name: 'x',
        selector: 'service.version=~".+"',
        enabled: 'true',
        body: 'a: 1\nb:\n  - c\n d: 2\n',
      });
      expect(answer.body).to.match(/data-error-line="4"/);
      expect(text(answer.body)).to.include('Line 4');
      expect(previewed(answer, 'targeted')).to.equal('6');
    });

    it('is refused without htmx, and to a viewer', async () => {
      const fields = { selector: 'x="y"', body: '' };
      expect(
        (await post('/partials/configs/check', fields, adminToken, { 'HX-Request': '' })).status,
      ).to.equal(403);
      expect((await post('/partials/configs/check', fields, viewerToken)).status).to.equal(403);
    });
  });

  describe('saving', () => {
    it('creates a config and sends the browser to its page', async () => {
      const answer = await post('/new-config', {
        name: 'edge',
        selector: 'host.name="sim-host-0"',
        content_type: 'text/yaml',
        enabled: 'true',
        body: 'a: 1\r\nb: 2\r\n',
      });
      expect(answer.status, answer.body).to.equal(201);
      expect(answer.headers.get('HX-Redirect')).to.equal('/configs/edge');
      expect(await config('edge')).to.include({ current_revision: 1, updated_by: 'operator' });
      expect((await service.api('GET', '/api/configs/edge/revisions/1')).json.body).to.equal('a: 1\nb: 2\n');
    });

    it('opens the newest revision for editing, and shows its diff against the revision in force', async () => {
      const answer = await page(service, '/configs/edge/edit', adminToken);
      expect(answer.body).to.include('value="1"').and.include('a: 1\nb: 2\n');
      const check = await post('/partials/configs/check', {
        name: 'edge',
        revision: '1',
        selector: 'host.name="sim-host-0"',
        enabled: 'true',
        body: 'a: 1\nb: 3\n',
      });
      expect(text(check.body)).to.include('Revision 1 in force → this edit: +1 −1 lines');
    });

    it('shows a viewer neither the form nor the body on an edit page', async () => {
      const answer = await page(service, '/configs/edge/edit', viewerToken);
      expect(answer.status).to.equal(403);
      expect(answer.body).not.to.include('<form');
      expect(answer.body).not.to.include('b: 2');
    });

    it('saves an edit as current, and one as a draft', async () => {
      const saved = await post('/configs/edge/edit', {
        name: 'edge',
        revision: '1',
        selector: 'host.name="sim-host-0"',
        enabled: 'true',
        body: 'a: 2\n',
      });
      expect(saved.status, saved.body).to.equal(200);
      expect(await config('edge')).to.include({ current_revision: 2, draft_revision: null });
      const draft = await post('/configs/edge/edit', {
        revision: '2',
        selector: 'host.name="sim-host-0"',
        enabled: 'true',
        body: 'a: 3\n',
        draft: 'true',
      });
      expect(draft.status, draft.body).to.equal(200);
      expect(await config('edge')).to.include({ current_revision: 2, draft_revision: 3 });
    });

    it('answers a lost race with what changed, and moves the base to the newest revision', async () => {
      const answer = await post('/configs/edge/edit', {
        revision: '2',
        selector: 'host.name="sim-host-0"',
        enabled: 'true',
        body: 'mine: 1\n',
      });
      expect(answer.status).to.equal(409);
      expect(text(answer.body)).to.include('Revision #3 (a draft) was saved by operator');
      expect(text(answer.body)).to.include("Revision 2 (your edit's base) → revision 3");
      expect(answer.body).to.include(
        '<input id="edit-base" type="hidden" name="revision" value="3" hx-swap-oob="true">',
      );
      expect(await config('edge')).to.include({ draft_revision: 3 });
    });

    it('refuses a body that does not parse, and writes nothing', async () => {
      const answer = await post('/configs/edge/edit', { revision: '3', selector: 'a="b"', body: 'a: [\n' });
      expect(answer.status).to.equal(400);
      expect(text(answer.body)).to.include('body does not parse');
      expect(await config('edge')).to.include({ draft_revision: 3 });
    });

    it('refuses writes not posted from this UI, and a viewer', async () => {
      const fields = { name: 'evil', selector: 'service.version=~".+"', body: 'x: 1\n' };
      const noHtmx = await post('/new-config', fields, adminToken, { 'HX-Request': '' });
      expect([noHtmx.status, text(noHtmx.body)]).to.deep.equal([
        403,
        'Refused configs are edited from the config pages of this UI only; use the JSON API from elsewhere (HX-Request missing)',
      ]);
      const crossSite = await post('/new-config', fields, adminToken, { 'Sec-Fetch-Site': 'cross-site' });
      expect(crossSite.status).to.equal(403);
      expect((await post('/new-config', fields, viewerToken)).status).to.equal(403);
      expect((await post('/new-config', fields, null)).status).to.equal(403);
      expect((await service.api('GET', '/api/configs/evil')).status).to.equal(404);
    });
  });

  describe('form bodies', () => {
    it('refuses a form over the cap (413, counted) and one that is not a form, writing nothing', async () => {
      const refused = async () =>
        (await scrape(`${service.app.urls.telemetry}/metrics`)).value('svc_ui_requests_refused_total', {
          reason: 'body_too_large',
        }) ?? 0;
      const before = await refused();
      const big = await post('/new-config', {
        name: 'big',
        selector: 'a="b"',
        body: 'x'.repeat(9 * 1024 * 1024),
      });
      expect([big.status, text(big.body)]).to.deep.equal([
        413,
        'Refused the form is larger than 8388608 bytes',
      ]);
      expect(await refused()).to.equal(before + 1);
      const typed = await post('/new-config', { name: 'big' }, adminToken, { 'Content-Type': 'text/plain' });
      expect(typed.status).to.equal(400);
      expect((await service.api('GET', '/api/configs/big')).status).to.equal(404);
    });
  });

  describe('the config page, Roll out… and Restore…', () => {
    const links = (html: string) =>
      [
        ...html.matchAll(
          /<a class="button[^"]*" href="([^"]+)">([^<]+)<\/a>|<a href="([^"]+)">(Restore…)<\/a>/g,
        ),
      ].map((m) => `${m[2] ?? m[4]} ${m[1] ?? m[3]}`);

    it('offers an admin Edit, Roll out… for the draft and Restore… for older revisions; a viewer none', async () => {
      expect(links((await page(service, '/configs/edge', adminToken)).body)).to.deep.equal([
        'Roll out… /configs/edge/rollout',
        'Edit /configs/edge/edit',
        'Restore… /configs/edge/revisions/3/restore',
        'Restore… /configs/edge/revisions/1/restore',
      ]);
      expect(links((await page(service, '/configs/edge', viewerToken)).body)).to.deep.equal([]);
      expect((await page(service, '/configs', adminToken)).body).to.include('href="/new-config">New config<');
      expect((await page(service, '/configs', viewerToken)).body).not.to.include('/new-config');
    });

    it('shows the draft against the revision in force beside the rollout form', async () => {
      const answer = await page(service, '/configs/edge/rollout', adminToken);
      expect(answer.status).to.equal(200);
      expect(text(answer.body)).to.include('Revision 2 in force → draft 3: +1 −1 lines');
      expect(answer.body).to.include('name="stages" value="1, 50%, 100%"');
      expect(answer.body, 'any failure pauses unless widened').to.include('name="max_failed" value="0"');
      const viewer = await page(service, '/configs/edge/rollout', viewerToken);
      expect([viewer.status, viewer.body.includes('<form')]).to.deep.equal([403, false]);
    });

    it("puts no inline script, style or handler and no external URL in an admin's editor pages", async () => {
      for (const path of [
        '/new-config',
        '/configs/edge/edit',
        '/configs/edge/rollout',
        '/configs/edge/revisions/1/restore',
      ]) {
        const { body, headers } = await page(service, path, adminToken);
        expect(body, path).to.include('<form');
        expect(headers.get('content-security-policy'), path).to.include("script-src 'self'");
        expect(referencedUrls(body).filter(isExternal), path).to.deep.equal([]);
        expect(body, path).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle="|\son[a-z]+="/);
      }
    });

    it('refuses settings arming would refuse, and records no job', async () => {
      const before = (await service.api('GET', '/api/jobs')).json.jobs as unknown[];
      const answer = await post('/configs/edge/rollout', {
        revision: '3',
        filter: 'connected=true',
        stages: '1, 50%',
      });
      expect(answer.status).to.equal(400);
      expect(text(answer.body)).to.include('the last of action_config.stages must be "100%"');
      expect((await service.api('GET', '/api/jobs')).json.jobs).to.have.length(before.length);
    });

    it('records and arms the rollout, and sends the browser to the job', async () => {
      const answer = await post('/configs/edge/rollout', {
        revision: '3',
        filter: 'connected=true',
        stages: '1, 100%',
        wait: '0s',
        max_failed: '1',
      });
      expect(answer.status, answer.body).to.equal(201);
      const id = /^\/jobs\/(.+)$/.exec(answer.headers.get('HX-Redirect') ?? '')?.[1] ?? '';
      const job = await service.until(id, 'succeeded');
      expect(job).to.include({ action: 'config_rollout', submitted_by: 'operator' });
      expect(await config('edge')).to.include({ current_revision: 3 });
    });

    it('shows what a restore changes first, and restores with the newest revision as its base', async () => {
      const shown = await page(service, '/configs/edge/revisions/1/restore', adminToken);
      expect(text(shown.body)).to.include('Revision 3 in force → revision 1');
      expect(shown.body).to.include('<input id="edit-base" type="hidden" name="revision" value="3">');
      const stale = await post('/configs/edge/revisions/1/restore', { revision: '2' });
      expect(stale.status).to.equal(409);
      expect(text(stale.body)).to.include("Revision 2 (your edit's base) → revision 3");
      const restored = await post('/configs/edge/revisions/1/restore', { revision: '3' });
      expect([restored.status, restored.headers.get('HX-Redirect')]).to.deep.equal([200, '/configs/edge']);
      const json = await config('edge');
      expect(json).to.include({ current_revision: 4 });
      expect((await service.api('GET', '/api/configs/edge/revisions/4')).json).to.include({
        restored_from: 1,
      });
    });
  });
});
