// The config editor (docs/ui.md "Config editor"): GET /new-config and GET /configs/{name}/edit show
// the form to an admin (others get the page with no form), POST /partials/configs/check answers the
// live check (configCheck.ts), and POST /new-config and POST /configs/{name}/edit save: made
// current, or kept as a draft with `draft=true`. Writes go to the same catalog calls and checks as
// the JSON API. A saved edit answers `HX-Redirect` to the config's page; a refusal answers a notice
// that htmx swaps above the form, leaving the edit as typed. A lost race (409: someone saved since
// the edit began) shows what they changed and moves the edit's base to their revision, so saving
// again replaces it knowingly.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { configNameProblem, defaultContentType } from '../../projections/remoteConfig/validateConfig.ts';
import { maxConfigRequestBytes } from '../api/configWriteRoutes.ts';
import { checkLocals, checkUrl, newConfigUrl } from './configCheck.ts';
import { documentOf, editOf, type ConfigEdit } from './configEdit.ts';
import { sendConfigNotFound } from './configPage.ts';
import { configHref } from './configStateLabels.ts';
import { sourceLocals } from './configsModel.ts';
import { readForm } from './formBody.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';
import { editorNeedsAdmin, mayEdit, pageWriter } from './pageWriter.ts';
import { conflictLocals } from './configConflict.ts';

export { newConfigUrl };
const editUrl = (name: string) => `${configHref(name)}/edit`;

const blank: ConfigEdit = {
  name: '',
  selector: '',
  contentType: defaultContentType,
  enabled: true,
  body: '',
  base: undefined,
};

export interface Notice {
  readonly title: string;
  readonly text: string;
}

export function mountConfigEditor(router: Router, deps: PagesDeps): void {
  async function page(ctx: Context, edit: ConfigEdit, isNew: boolean) {
    const allowed = mayEdit(ctx);
    const source = sourceLocals(deps.configs);
    const locals = {
      title: isNew ? 'New config' : `Edit ${edit.name}`,
      nav: 'configs',
      now: deps.now(),
      isNew,
      allowed,
      reason: editorNeedsAdmin,
      source,
      edit,
      lines: edit.body.split('\n').length,
      saveUrl: isNew ? newConfigUrl : editUrl(edit.name),
      cancelUrl: isNew ? '/configs' : configHref(edit.name),
      ...(allowed && source.writable && (await checkLocals(deps, edit, isNew, true))),
    };
    sendHtml(ctx, allowed ? 200 : 403, deps.render('configEdit', locals));
  }

  /** A refusal above the form: the status the API would give, the reason, and what changed on a 409. */
  function refuse(ctx: Context, status: number, notice: Notice, extra: object = {}) {
    sendHtml(ctx, status, deps.render('partials/editorNotice', { now: deps.now(), notice, ...extra }));
  }

  /** Someone saved since the edit began: say what, keep the edit, move its base (configConflict.ts). */
  async function lostRace(ctx: Context, name: string, base: number, latest: number) {
    const conflict = await conflictLocals(deps, name, base, latest);
    const text = `${name} is at revision ${latest}, not ${base}`;
    // The live check compares with the revision in force; it may have moved too.
    ctx.set('HX-Trigger', 'config-changed');
    refuse(ctx, 409, { title: 'Not saved: changed meanwhile', text }, conflict);
  }

  async function save(ctx: Context, isNew: boolean, name: string) {
    const writer = pageWriter(ctx, deps.allowUnauthenticatedWrites);
    if (!writer.ok) return refuse(ctx, writer.status, { title: 'Refused', text: writer.error });
    const readOnly = deps.configs.readOnly;
    if (readOnly !== undefined)
      return refuse(ctx, readOnly.status, { title: 'Refused', text: readOnly.reason });
    const form = await readForm(ctx, maxConfigRequestBytes);
    if (!form.ok) return refuse(ctx, form.status, { title: 'Refused', text: form.error });
    const edit = { ...editOf(form.fields), ...(!isNew && { name }) };
    const draft = form.fields.get('draft') === 'true';
    const document = documentOf(edit, isNew);
    if (!document.ok) return refuse(ctx, 400, { title: 'Not saved', text: document.error });
    const write = { document: document.value, draft, author: writer.author };
    const base = isNew ? undefined : edit.base;
    if (!isNew && base === undefined)
      return refuse(ctx, 400, { title: 'Not saved', text: 'the revision this edit is based on is missing' });
    const outcome =
      base === undefined
        ? await deps.configs.create(edit.name, write)
        : await deps.configs.update(name, write, base);
    if (!outcome.ok) {
      if (outcome.status === 409 && outcome.latestRevision !== undefined && base !== undefined)
        return lostRace(ctx, name, base, outcome.latestRevision);
      return refuse(ctx, outcome.status, { title: 'Not saved', text: outcome.error });
    }
    const { latest } = outcome.config;
    deps.logger.info(
      {
        actor: writer.author,
        action: isNew ? 'create' : draft ? 'save draft' : 'update',
        config: latest.name,
        revision: latest.revision,
        via: 'ui',
      },
      'remote config written',
    );
    // "Roll out in stages…": the edit is kept as a draft and the rollout form opens on it.
    const staged = draft && form.fields.get('then') === 'rollout';
    ctx.set('HX-Redirect', staged ? `${configHref(latest.name)}/rollout` : configHref(latest.name));
    sendHtml(ctx, isNew ? 201 : 200, '');
  }

  router.get(newConfigUrl, (ctx) => page(ctx, blank, true));

  router.get('/configs/:name/edit', async (ctx) => {
    const name = ctx.params.name ?? '';
    const summary = configNameProblem(name) === undefined ? await deps.configs.get(name) : undefined;
    if (summary === undefined) return sendConfigNotFound(ctx, deps, false);
    // The edit builds on the newest revision, so an edit after a draft continues the draft.
    const { latest } = summary;
    await page(ctx, { ...latest, base: latest.revision }, false);
  });

  router.post(newConfigUrl, (ctx) => save(ctx, true, ''));
  router.post('/configs/:name/edit', async (ctx) => {
    const name = ctx.params.name ?? '';
    if (configNameProblem(name) !== undefined || (await deps.configs.get(name)) === undefined)
      return refuse(ctx, 404, { title: 'Not saved', text: `no config ${name}` });
    await save(ctx, false, name);
  });

  router.post(checkUrl, async (ctx) => {
    const writer = pageWriter(ctx, deps.allowUnauthenticatedWrites);
    if (!writer.ok) return refuse(ctx, writer.status, { title: 'Refused', text: writer.error });
    const form = await readForm(ctx, maxConfigRequestBytes);
    if (!form.ok) return refuse(ctx, form.status, { title: 'Refused', text: form.error });
    const edit = editOf(form.fields);
    const isNew = edit.base === undefined;
    sendHtml(ctx, 200, deps.render('partials/configCheck', await checkLocals(deps, edit, isNew)));
  });
}
