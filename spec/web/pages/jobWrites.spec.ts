// The job page's buttons over real HTTP, against a service with PostgreSQL and simulator agents:
// shown only to callers who may write, posted the way htmx posts them, authorized by the API's
// write rule, taken only from this UI, and answered with the job's fragment and a notice that says
// what was done or why it was refused.

import { expect } from 'chai';
import { eventually } from '../../persistence/eventually.ts';
import {
  adminToken,
  arm,
  page,
  press,
  startJobsService,
  text,
  viewerToken,
  type JobsService,
  type PageAnswer,
} from './jobsHarness.ts';

const buttons = (html: string) =>
  [
    ...html.matchAll(/<button class="button \w+" type="button" hx-post="([^"]+)"[^>]*>([^<]+)<\/button>/g),
  ].map((m) => `${m[2]} ${m[1]!.replace(/^\/jobs\/[^/]+\//, '')}`);
const notice = (answer: PageAnswer) =>
  text(/<div id="job-notice" hx-swap-oob="true"[^>]*>(.*?)<\/div>$/s.exec(answer.body)?.[1] ?? '');
const noticeStatus = (answer: PageAnswer) =>
  /<div id="job-notice" hx-swap-oob="true" data-job-status="(\w+)"/.exec(answer.body)?.[1];

describe('job page buttons (POST /jobs/{id}/{command})', function () {
  this.timeout(90_000);
  let service: JobsService;
  let rollout: string;
  const status = async (id: string) => (await service.api('GET', `/api/jobs/${id}`)).json.status;
  const events = async (id: string) =>
    (await service.api('GET', `/api/jobs/${id}`)).json.events as {
      kind: string;
      actor: string;
      reason: string;
    }[];

  before(async () => {
    service = await startJobsService();
    await service.configWithDraft('edge');
    rollout = await service.createJob('config_rollout', {
      config: 'edge',
      revision: 2,
      stages: [1, '100%'],
      wait: '10m',
    });
    await arm(service, rollout);
    await service.until(rollout, 'running');
  });
  after(() => service.stop());

  describe('who sees them', () => {
    it('offers an admin the moves the job allows now', async () => {
      expect(buttons((await page(service, `/jobs/${rollout}`, adminToken)).body)).to.deep.equal([
        'Pause pause',
        'Cancel job cancel',
        'Roll back rollback',
      ]);
      const planned = await service.createJob('restart');
      expect(buttons((await page(service, `/jobs/${planned}`, adminToken)).body)).to.deep.equal([
        'Arm arm',
        'Arm live arm?target_mode=live',
        'Cancel job cancel',
      ]);
    });

    it('asks for a reason before the moves that end something', async () => {
      const { body } = await page(service, `/jobs/${rollout}`, adminToken);
      expect(body).to.match(/hx-post="[^"]+\/cancel"[^>]*hx-prompt="Cancel this job\?/);
      expect(body).to.match(/hx-post="[^"]+\/rollback"[^>]*hx-prompt="Roll back\?/);
      expect(body).not.to.match(/hx-post="[^"]+\/pause"[^>]*hx-prompt/);
    });

    it('shows a viewer and an anonymous caller no buttons, and says what the moves need', async () => {
      for (const token of [viewerToken, null]) {
        const { body } = await page(service, `/jobs/${rollout}`, token);
        expect(buttons(body), String(token)).to.deep.equal([]);
        expect(body).not.to.include('hx-post');
        expect(text(body)).to.include(
          'Read-only: pause, cancel, rollback need an admin identity (an API token or a client certificate).',
        );
      }
    });
  });

  describe('a write through the page', () => {
    it('pauses and resumes a job for an admin, records who did it, and answers the fragment with a notice', async () => {
      const paused = await press(service, `/jobs/${rollout}/pause`, adminToken);
      expect(paused.status).to.equal(200);
      expect(paused.headers.get('content-security-policy')).to.include("default-src 'self'");
      expect(paused.body).to.match(/^<section id="job-live" data-job-status="paused" hx-get=/);
      expect(paused.body).to.include('<span class="badge job-paused">Paused</span>');
      expect(notice(paused)).to.equal('Paused by operator');
      expect(noticeStatus(paused), 'the status the notice was written for').to.equal('paused');
      expect(buttons(paused.body)).to.deep.equal([
        'Resume resume',
        'Cancel job cancel',
        'Roll back rollback',
      ]);
      expect(await status(rollout)).to.equal('paused');
      expect((await events(rollout)).at(-1)).to.include({
        kind: 'pause',
        actor: 'operator',
        reason: 'pause by operator',
      });
      const resumed = await press(service, `/jobs/${rollout}/resume`, adminToken);
      expect(notice(resumed)).to.equal('Resumed by operator');
      expect(await status(rollout)).to.equal('running');
    });

    it('keeps the targets table where it was', async () => {
      const answer = await press(service, `/jobs/${rollout}/pause?state=pending`, adminToken);
      expect(answer.body).to.include(`hx-get="/partials/jobs/${rollout}?state=pending"`);
      expect(answer.body).to.include(`hx-post="/jobs/${rollout}/resume?state=pending"`);
      await press(service, `/jobs/${rollout}/resume`, adminToken);
    });

    it('refuses an anonymous write with 403 and the reason, and changes nothing', async () => {
      const refused = await press(service, `/jobs/${rollout}/pause`, null);
      expect(refused.status).to.equal(403);
      expect(notice(refused)).to.match(/^Refused writes need authentication: present an API token/);
      expect(refused.body).to.include('<span class="badge job-running">Running</span>');
      expect(await status(rollout)).to.equal('running');
    });

    it('refuses a viewer before the page sees the request', async () => {
      const refused = await press(service, `/jobs/${rollout}/pause`, viewerToken);
      expect(refused.status).to.equal(403);
      expect(refused.headers.get('content-type')).to.match(/^text\/plain/);
      expect(refused.body).to.equal('forbidden: watcher has role viewer; POST needs admin\n');
      expect(await status(rollout)).to.equal('running');
    });

    it('takes writes only from this UI: not a plain form post, not another origin', async () => {
      const form = await page(service, `/jobs/${rollout}/pause`, adminToken, { method: 'POST' });
      expect(form.status).to.equal(403);
      expect(text(form.body)).to.include('job actions are taken from the job page of this UI only');
      const foreign = await press(service, `/jobs/${rollout}/pause`, adminToken, {
        Origin: 'https://elsewhere.example',
      });
      // The listener's request guard refuses it before the page sees it (src/web/guard).
      expect(foreign.status).to.equal(403);
      expect(foreign.body).to.equal(
        'forbidden: cross-site write refused (Origin: https://elsewhere.example)\n',
      );
      const crossSite = await press(service, `/jobs/${rollout}/pause`, adminToken, {
        'Sec-Fetch-Site': 'cross-site',
      });
      expect(crossSite.status).to.equal(403);
      expect(await status(rollout)).to.equal('running');
    });

    it('answers a move the job does not allow with 409 and why', async () => {
      const wrong = await press(service, `/jobs/${rollout}/resume`, adminToken);
      expect(wrong.status).to.equal(409);
      expect(notice(wrong)).to.equal(`Refused job ${rollout} is running: it cannot resume`);
      const restart = await service.createJob('restart');
      const rollback = await press(service, `/jobs/${restart}/rollback`, adminToken);
      expect(rollback.status).to.equal(409);
      expect(notice(rollback)).to.include('only config rollouts roll back');
    });

    it('cancels with the reason typed into the prompt, also when it is not Latin-1', async () => {
      const first = await service.createJob('restart');
      await press(service, `/jobs/${first}/cancel`, adminToken, { 'HX-Prompt': 'maintenance window over' });
      expect((await events(first)).at(-1)).to.include({ kind: 'cancel', reason: 'maintenance window over' });
      const second = await service.createJob('restart');
      const answer = await press(service, `/jobs/${second}/cancel`, adminToken, {
        'HX-Prompt': encodeURIComponent('Wartung vorbei ✓'),
        'HX-Prompt-URI-AutoEncoded': 'true',
      });
      expect(answer.body).to.include('<span class="badge job-cancelled">Cancelled</span>');
      expect((await events(second)).at(-1)).to.include({ reason: 'Wartung vorbei ✓' });
    });

    it('arms a job live, and the page starts polling it', async () => {
      const job = await service.createJob('restart', { reconnect_timeout: '30s' }, 'connected=true');
      const armed = await press(service, `/jobs/${job}/arm?target_mode=live`, adminToken);
      expect(armed.status).to.equal(200);
      expect(notice(armed)).to.equal('Armed by operator');
      expect(armed.body).to.match(
        /^<section id="job-live" data-job-status="armed" hx-get="\/partials\/jobs\/[^"]+" hx-trigger="every 300ms"/,
      );
      expect((await service.api('GET', `/api/jobs/${job}`)).json).to.include({ target_mode: 'live' });
      await service.until(job, 'succeeded');
    });

    it('answers an unknown command or job with 404', async () => {
      expect((await press(service, `/jobs/${rollout}/reboot`, adminToken)).status).to.equal(404);
      expect(
        (await press(service, '/jobs/00000000-0000-4000-8000-000000000000/pause', adminToken)).status,
      ).to.equal(404);
      expect(await status(rollout)).to.equal('running');
    });
  });
});

describe('job page buttons with auth.allow_unauthenticated_writes', function () {
  this.timeout(60_000);
  let service: JobsService;

  before(async () => {
    service = await startJobsService({
      config: { auth: { allow_unauthenticated_writes: true } },
      fleet: { agents: 2 },
    });
  });
  after(() => service.stop());

  it('offers an anonymous caller the buttons, and records its write as anonymous', async () => {
    const job = await service.createJob('restart');
    expect(buttons((await page(service, `/jobs/${job}`, null)).body)).to.include('Arm arm');
    const armed = await press(service, `/jobs/${job}/arm`, null);
    expect(armed.status).to.equal(200);
    expect(notice(armed)).to.equal('Armed by anonymous');
    await eventually(
      async () => (await service.api('GET', `/api/jobs/${job}`)).json.status === 'succeeded',
      'the restart to succeed',
    );
  });
});
