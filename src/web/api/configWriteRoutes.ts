// The remote config write API (docs/remote-config.md "API"): create, change (with the revision the
// change is based on as a precondition: a lost race is 409), delete, restore an old revision, and a
// preview that changes nothing. Every write needs an admin identity, or an anonymous request with
// auth.allow_unauthenticated_writes (authorizeWrite); it is logged with its author and kept in the
// revision history as such. Checks, in order: the source takes writes (409 directory, 503 none),
// authorization (403), the body (413, 400), the catalog (404, 409).

import type { Context } from 'koa';
import type { WriteOutcome } from '../../projections/remoteConfig/configCatalog.ts';
import { configStateOf } from '../../projections/remoteConfig/configState.ts';
import { authorizeWrite, bodyShownTo } from '../auth.ts';
import { configView } from '../views/configView.ts';
import type { ApiDeps, ApiRouter } from './apiDeps.ts';
import { revisionNumber } from './configRoutes.ts';
import { parseBase, parseCreate, parsePreview, parseUpdate } from './configRequest.ts';
import { sendJson } from './jsonResponse.ts';
import { readJsonRequest } from './readJsonBody.ts';
import { previewChange } from '../write/configPreview.ts';

/** A config body is at most 1 MiB; JSON escaping can make its text several times larger. */
export const maxConfigRequestBytes = 8 * 1024 * 1024;
const previewLimit = 100;

const jsonBody = (ctx: Context, allowEmpty = false): Promise<unknown> =>
  readJsonRequest(ctx, maxConfigRequestBytes, { allowEmpty });

export function configWriteRoutes(router: ApiRouter, deps: ApiDeps): void {
  /** The author of a write, after the source and authorization checks; throws the refusal. */
  function writer(ctx: Context): string {
    const readOnly = deps.configs.readOnly;
    if (readOnly !== undefined) return ctx.throw(readOnly.status, readOnly.reason, { expose: true });
    const auth = authorizeWrite(ctx, deps.allowUnauthenticatedWrites);
    if (!auth.ok) return ctx.throw(auth.status, auth.error);
    return auth.author;
  }

  function answer(ctx: Context, outcome: WriteOutcome, status: number, action: string, author: string): void {
    if (!outcome.ok) {
      if (outcome.status === 409 && outcome.latestRevision !== undefined) {
        sendJson(ctx, 409, { error: outcome.error, latest_revision: outcome.latestRevision });
        return;
      }
      return ctx.throw(outcome.status, outcome.error, { expose: true });
    }
    const { name, latest, current } = outcome.config;
    deps.logger.info(
      { actor: author, action, config: name, revision: latest.revision, current: current?.revision ?? null },
      'remote config written',
    );
    sendJson(ctx, status, configView(outcome.config, undefined, bodyShownTo(ctx)));
  }

  router.post('/api/configs', async (ctx) => {
    const author = writer(ctx);
    const request = parseCreate(await jsonBody(ctx));
    if (!request.ok) return ctx.throw(400, request.error);
    const { name, document, draft } = request.value;
    answer(ctx, await deps.configs.create(name, { document, draft, author }), 201, 'create', author);
  });

  router.put('/api/configs/:name', async (ctx) => {
    const author = writer(ctx);
    const name = ctx.params.name ?? '';
    const body = await jsonBody(ctx);
    const summary = await deps.configs.get(name);
    if (summary === undefined) return ctx.throw(404, `no config ${name}`);
    const request = parseUpdate(body, summary.latest);
    if (!request.ok) return ctx.throw(400, request.error);
    const { document, draft, base } = request.value;
    const outcome = await deps.configs.update(name, { document, draft, author }, base);
    answer(ctx, outcome, 200, draft ? 'save draft' : 'update', author);
  });

  router.delete('/api/configs/:name', async (ctx) => {
    const author = writer(ctx);
    const name = ctx.params.name ?? '';
    const base = new URLSearchParams(ctx.querystring).get('revision');
    const outcome = await deps.configs.remove(
      name,
      author,
      base === null ? undefined : revisionNumber(ctx, base),
    );
    answer(ctx, outcome, 200, 'delete', author);
  });

  router.post('/api/configs/:name/revisions/:revision/restore', async (ctx) => {
    const author = writer(ctx);
    const name = ctx.params.name ?? '';
    const n = revisionNumber(ctx, ctx.params.revision);
    const base = parseBase(await jsonBody(ctx, true));
    if (!base.ok) return ctx.throw(400, base.error);
    answer(ctx, await deps.configs.restore(name, n, author, base.value), 200, `restore ${n}`, author);
  });

  router.post('/api/configs/preview', async (ctx) => {
    const request = parsePreview(await jsonBody(ctx));
    if (!request.ok) return ctx.throw(400, request.error);
    const preview = await previewChange(deps, request.value);
    sendJson(ctx, 200, {
      name: preview.config.name,
      selector: request.value.selector,
      targeted: preview.targeted,
      changed: preview.changed,
      incompatible: preview.incompatible,
      // Without a body (a selector alone) the hashes show the config's current body, or an empty one.
      body_known: preview.bodyKnown,
      partial: preview.partial,
      agents: preview.rows.slice(0, previewLimit).map((r) => ({
        instance_uid: r.agent.uid,
        targeted: r.targeted,
        config_state: configStateOf(r.agent, r.now),
        desired_hash: r.now?.hash ?? null,
        desired_hash_after: r.after?.hash ?? null,
        missing_components_after: r.missingAfter ?? {},
      })),
    });
  });
}
