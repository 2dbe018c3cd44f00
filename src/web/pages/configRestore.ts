// Restore… (docs/ui.md "Config editor"): GET /configs/{name}/revisions/{n}/restore shows an admin
// what restoring revision n would change against the revision in force, first; POST makes a new
// current revision with its content, through the catalog's restore (as POST
// /api/configs/{name}/revisions/{n}/restore), with the newest revision the page showed as the
// precondition: a lost race (409) says what was saved meanwhile.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { configNameProblem } from '../../projections/remoteConfig/validateConfig.ts';
import { conflictLocals } from './configConflict.ts';
import { sendConfigNotFound } from './configPage.ts';
import { configHref, restoreUrl } from './configStateLabels.ts';
import { readForm } from './formBody.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { editorNeedsAdmin, mayEdit, pageWriter } from './pageWriter.ts';
import { revisionDiff } from './revisionDiff.ts';

const revisionOf = (text: string | undefined): number | undefined => {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

export function mountConfigRestore(router: Router, deps: PagesDeps): void {
  function refuse(ctx: Context, status: number, text: string, extra: object = {}) {
    const notice = { title: 'Not restored', text };
    sendHtml(ctx, status, deps.render('partials/editorNotice', { now: deps.now(), notice, ...extra }));
  }

  router.get('/configs/:name/revisions/:revision/restore', async (ctx) => {
    const name = ctx.params.name ?? '';
    const n = revisionOf(ctx.params.revision);
    const ok = configNameProblem(name) === undefined && n !== undefined;
    const [summary, revision] = ok
      ? await Promise.all([deps.configs.get(name), deps.configs.revision(name, n)])
      : [undefined, undefined];
    if (summary === undefined || revision === undefined) return sendConfigNotFound(ctx, deps, false);
    const allowed = mayEdit(ctx);
    const reason = !allowed ? editorNeedsAdmin : (deps.configs.readOnly?.reason ?? undefined);
    const inForce = summary.current ?? undefined;
    const locals = {
      title: `Restore ${name} #${revision.revision}`,
      nav: 'configs',
      now: deps.now(),
      name,
      configUrl: configHref(name),
      postUrl: restoreUrl(name, revision.revision),
      reason,
      revision,
      latest: summary.latest.revision,
      // A refusal shows no body: the diff holds both revisions whole (docs/security.md).
      diff: allowed ? revisionDiff(inForce, revision) : undefined,
      summary:
        inForce === undefined
          ? `Nothing in force → revision ${revision.revision}`
          : `Revision ${inForce.revision} in force → revision ${revision.revision}`,
    };
    sendHtml(ctx, allowed ? 200 : 403, deps.render('configRestore', locals));
  });

  router.post('/configs/:name/revisions/:revision/restore', async (ctx) => {
    const name = ctx.params.name ?? '';
    const writer = pageWriter(ctx, deps.allowUnauthenticatedWrites);
    if (!writer.ok) return refuse(ctx, writer.status, writer.error);
    const n = revisionOf(ctx.params.revision);
    if (configNameProblem(name) !== undefined || n === undefined)
      return refuse(ctx, 404, `no config ${name}`);
    const form = await readForm(ctx, 1024);
    if (!form.ok) return refuse(ctx, form.status, form.error);
    const base = revisionOf(form.fields.get('revision') ?? '');
    const outcome = await deps.configs.restore(name, n, writer.author, base);
    if (!outcome.ok) {
      if (outcome.status === 409 && outcome.latestRevision !== undefined && base !== undefined)
        return refuse(
          ctx,
          409,
          outcome.error,
          await conflictLocals(deps, name, base, outcome.latestRevision),
        );
      return refuse(ctx, outcome.status, outcome.error);
    }
    deps.logger.info(
      {
        actor: writer.author,
        action: `restore ${n}`,
        config: name,
        revision: outcome.config.latest.revision,
        via: 'ui',
      },
      'remote config written',
    );
    ctx.set('HX-Redirect', configHref(name));
    sendHtml(ctx, 200, '');
  });
}
