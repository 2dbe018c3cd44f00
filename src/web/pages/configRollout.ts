// Roll out… (docs/ui.md "Config editor"): GET /configs/{name}/rollout shows an admin the config's
// newest draft, its diff against the revision in force, and a form for the rollout's filter,
// stages, wait and gates; POST records that `config_rollout` job and arms it with the checks the
// JSON API applies (write/jobCommands.ts), then sends the browser to the job's page. A job that
// arming refuses is cancelled at once with the reason, so no planned job is left behind.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { configNameProblem } from '../../projections/remoteConfig/validateConfig.ts';
import { sendConfigNotFound } from './configPage.ts';
import { configHref } from './configStateLabels.ts';
import { readForm } from './formBody.ts';
import { jobHref } from './jobLabels.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { editorNeedsAdmin, mayEdit, pageWriter } from './pageWriter.ts';
import { revisionDiff } from './revisionDiff.ts';
import { rolloutDefaults, rolloutFormOf, rolloutJob, type RolloutForm } from './rolloutForm.ts';
import { rolloutPreviewLocals } from './rolloutPreview.ts';

const maxRolloutFormBytes = 16 * 1024;
const rolloutUrl = (name: string) => `${configHref(name)}/rollout`;

/** Why this config cannot be rolled out from here now, or undefined. */
function unavailable(deps: PagesDeps): string | undefined {
  if (deps.jobs === undefined || deps.jobStore === undefined || deps.jobCommands === undefined)
    return 'Rollouts are jobs, and jobs need persistence (database.host).';
  if (deps.configs.source !== 'database')
    return 'Rollouts need remote configs in the database (not remote_config.dir).';
  return undefined;
}

export function mountConfigRollout(router: Router, deps: PagesDeps): void {
  async function page(ctx: Context, name: string, form: RolloutForm) {
    const summary = configNameProblem(name) === undefined ? await deps.configs.get(name) : undefined;
    if (summary === undefined) return sendConfigNotFound(ctx, deps, false);
    const { current, latest } = summary;
    const draft = latest.revision > (current?.revision ?? 0) ? latest : undefined;
    const reason = !mayEdit(ctx)
      ? editorNeedsAdmin
      : (unavailable(deps) ??
        (draft === undefined
          ? `${name} has no draft newer than the revision in force: save one first.`
          : undefined));
    const locals = {
      title: `Roll out ${name}`,
      nav: 'configs',
      now: deps.now(),
      name,
      configUrl: configHref(name),
      postUrl: rolloutUrl(name),
      reason,
      draft,
      current,
      // A refusal to a non-admin shows no body: the diff holds both revisions whole (docs/security.md).
      diff: draft === undefined || !mayEdit(ctx) ? undefined : revisionDiff(current ?? undefined, draft),
      form,
      checkUrl: `${rolloutUrl(name)}/check`,
      preview:
        reason === undefined && draft !== undefined
          ? await rolloutPreviewLocals(deps, name, draft.revision, form)
          : undefined,
    };
    sendHtml(
      ctx,
      reason === undefined ? 200 : mayEdit(ctx) ? 409 : 403,
      deps.render('configRollout', locals),
    );
  }

  function refuse(ctx: Context, status: number, text: string) {
    const notice = { title: 'Not rolled out', text };
    sendHtml(ctx, status, deps.render('partials/editorNotice', { now: deps.now(), notice }));
  }

  /** The writer and the form of a POST that may roll out, or undefined once refused. */
  async function readRolloutRequest(ctx: Context) {
    const writer = pageWriter(ctx, deps.allowUnauthenticatedWrites);
    if (!writer.ok) return refuse(ctx, writer.status, writer.error);
    const off = unavailable(deps);
    if (off !== undefined) return refuse(ctx, 503, off);
    const form = await readForm(ctx, maxRolloutFormBytes);
    if (!form.ok) return refuse(ctx, form.status, form.error);
    return { writer, form };
  }

  router.get('/configs/:name/rollout', (ctx) => page(ctx, ctx.params.name ?? '', rolloutDefaults));

  // The form's numbers as it is typed: a read, refused like the page to anyone who may not roll out.
  router.post('/configs/:name/rollout/check', async (ctx) => {
    const name = ctx.params.name ?? '';
    const request = await readRolloutRequest(ctx);
    if (request === undefined) return;
    const { form } = request;
    if (configNameProblem(name) !== undefined || (await deps.configs.get(name)) === undefined)
      return refuse(ctx, 404, `no config ${name}`);
    const revision = Number(form.fields.get('revision'));
    const preview = await rolloutPreviewLocals(deps, name, revision, rolloutFormOf(form.fields));
    sendHtml(ctx, 200, deps.render('partials/rolloutPreview', { now: deps.now(), preview }));
  });

  router.post('/configs/:name/rollout', async (ctx) => {
    const name = ctx.params.name ?? '';
    const request = await readRolloutRequest(ctx);
    if (request === undefined) return;
    const { writer, form } = request;
    const revision = Number(form.fields.get('revision'));
    const job = rolloutJob(rolloutFormOf(form.fields), name, revision, writer.author);
    if (!job.ok) return refuse(ctx, 400, job.error);
    const created = await deps.jobStore!.create(job.value);
    const armed = await deps.jobCommands!.arm(created.id, writer.author, {});
    if (!armed.ok) {
      await deps.jobCommands!.act(created.id, 'cancel', writer.author, `not armed: ${armed.error}`);
      return refuse(ctx, armed.status, `${armed.error} (job ${created.id} was cancelled)`);
    }
    deps.logger.info(
      { actor: writer.author, action: 'arm', job: created.id, config: name, revision, via: 'ui' },
      'config rollout',
    );
    ctx.set('HX-Redirect', jobHref(created.id));
    sendHtml(ctx, 201, '');
  });
}
