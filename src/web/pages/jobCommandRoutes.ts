// POST /jobs/{id}/{arm|pause|resume|cancel|rollback|promote}: the job page's buttons. The same write rule
// as the JSON API (authorizeWrite: an admin identity, or anonymous with
// auth.allow_unauthenticated_writes; a viewer is refused by the authentication layer first), and
// the same checks (write/jobCommands.ts). Only htmx requests from this UI are taken
// (sameOriginWrite.ts). The answer is the job's live fragment, with a notice (out of band, so
// polling leaves it) saying what was done or why it was refused, under the status the API would
// give. Arm takes `?target_mode=live`; cancel, rollback and promote take the reason typed into htmx's
// prompt.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { authorizeWrite } from '../auth.ts';
import { jobCommandNames, type CommandOutcome, type JobCommandName } from '../write/jobCommands.ts';
import { readJobLocals, sendJobAbsent } from './jobPage.ts';
import { parseJobQuery } from './jobQuery.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { crossSiteProblem } from './sameOriginWrite.ts';

const done: Readonly<Record<JobCommandName, string>> = {
  arm: 'Armed',
  pause: 'Paused',
  resume: 'Resumed',
  cancel: 'Cancelled',
  rollback: 'Rolled back',
  promote: 'Promoted',
};

export interface Notice {
  readonly kind: 'ok' | 'error';
  readonly title: string;
  readonly text: string;
}

/** The reason typed into htmx's prompt (URI-encoded by htmx when not Latin-1), at most 500 characters. */
function promptReason(ctx: Context): string {
  const raw = ctx.get('HX-Prompt');
  let text = raw;
  if (ctx.get('HX-Prompt-URI-AutoEncoded') === 'true') {
    try {
      text = decodeURIComponent(raw);
    } catch {
      text = raw;
    }
  }
  return text.trim().slice(0, 500);
}

async function run(deps: PagesDeps, ctx: Context, id: string, command: JobCommandName, who: string) {
  if (command === 'arm')
    return deps.jobCommands!.arm(id, who, { target_mode: ctx.query.target_mode ?? undefined });
  const reason = promptReason(ctx) || `${command} by ${who}`;
  return deps.jobCommands!.act(id, command, who, reason);
}

export function mountJobCommands(router: Router, deps: PagesDeps): void {
  async function answer(ctx: Context, id: string, status: number, notice: Notice) {
    const query = parseJobQuery(new URLSearchParams(ctx.querystring));
    const locals = await readJobLocals(ctx, deps, deps.jobs!, id, query, true);
    if (locals === undefined) return;
    // The notice names the status it was written for (app.js drops it once the job moves on).
    const shown = { ...notice, status: locals.job.status };
    const html =
      deps.render('partials/job', locals) + deps.render('partials/jobNotice', { notice: shown, oob: true });
    sendHtml(ctx, status, html);
  }

  router.post('/jobs/:id/:command', async (ctx) => {
    const id = ctx.params.id ?? '';
    const command = ctx.params.command as JobCommandName;
    if (!jobCommandNames.includes(command)) return sendJobAbsent(ctx, deps, true, 'missing');
    if (deps.jobs === undefined || deps.jobCommands === undefined)
      return sendJobAbsent(ctx, deps, true, 'off');
    const refused = (status: number, text: string) =>
      answer(ctx, id, status, { kind: 'error', title: 'Refused', text });
    const crossSite = crossSiteProblem({
      hxRequest: ctx.get('HX-Request'),
      origin: ctx.get('Origin'),
      fetchSite: ctx.get('Sec-Fetch-Site'),
      host: ctx.host,
    });
    if (crossSite !== undefined) return refused(403, crossSite);
    const auth = authorizeWrite(ctx, deps.allowUnauthenticatedWrites);
    if (!auth.ok) return refused(auth.status, auth.error);
    const outcome: CommandOutcome = await run(deps, ctx, id, command, auth.author);
    if (!outcome.ok) return refused(outcome.status, outcome.error);
    deps.logger.info(
      { actor: auth.author, action: command, job: outcome.job.id, status: outcome.job.status, via: 'ui' },
      'job command',
    );
    await answer(ctx, id, 200, { kind: 'ok', title: done[command], text: `by ${auth.author}` });
  });
}
