// GET /api/audit and GET /audit (docs/security.md "Audit log"): the audit log, newest first, with
// its filters. Read-only: the service has no route that changes or removes an entry. The log names
// people, so it is shown to an identity (a signed-in person, a token, a certificate) only, never to
// an anonymous reader; a page refused so sends the browser to sign in.

import Router from '@koa/router';
import type { Context } from 'koa';
import { auditActions, type AuditEntry, type AuditLog } from '../../projections/access/auditLog.ts';
import type { AuthState } from '../auth.ts';
import { sendRefusal } from '../guard/refusal.ts';
import { sendHtml } from '../pages/pageContext.ts';
import type { Renderer } from '../pages/render.ts';
import { sendJson } from '../api/jsonResponse.ts';
import { parseAuditQuery } from './auditQuery.ts';

export interface AuditRoutesDeps {
  readonly log: AuditLog;
  readonly render: Renderer;
  readonly now: () => number;
}

export const auditEntryView = (e: AuditEntry) => ({
  id: e.id,
  at: new Date(e.at).toISOString(),
  actor: { kind: e.actor.kind, id: e.actor.id, name: e.actor.name },
  action: e.action,
  target_kind: e.targetKind,
  target: e.target,
  via: e.via,
  detail: e.detail,
});

const needsIdentity = 'the audit log names people: sign in, or present an API token or client certificate';

/** GET /api/audit, on the API router (so the OpenAPI spec holds it to the document). */
export function auditApiRoutes(router: Router, log: AuditLog | undefined): void {
  router.get('/api/audit', async (ctx) => {
    if (log === undefined) return ctx.throw(503, 'no audit log here', { expose: true });
    if ((ctx.state as AuthState).identity === undefined)
      return sendRefusal(ctx, 403, 'forbidden', needsIdentity);
    const query = parseAuditQuery(new URLSearchParams(ctx.querystring));
    if (!query.ok) return sendJson(ctx, 400, { error: query.error });
    const entries = await log.list(query.filter);
    const last = entries.at(-1);
    const full = entries.length === query.filter.limit;
    sendJson(ctx, 200, { entries: entries.map(auditEntryView), next_before: full && last ? last.id : null });
  });
}

/** GET /audit, the page. */
export function createAuditRoutes(deps: AuditRoutesDeps): Router {
  const router = new Router();
  const identified = (ctx: Context) => (ctx.state as AuthState).identity !== undefined;

  router.get('/audit', async (ctx) => {
    if (!identified(ctx)) return sendRefusal(ctx, 403, 'forbidden', needsIdentity);
    const params = new URLSearchParams(ctx.querystring);
    const query = parseAuditQuery(params);
    const entries = query.ok ? await deps.log.list(query.filter) : [];
    const next = new URLSearchParams(params);
    const last = entries.at(-1);
    if (query.ok && last !== undefined && entries.length === query.filter.limit)
      next.set('before', String(last.id));
    sendHtml(
      ctx,
      query.ok ? 200 : 400,
      deps.render('audit', {
        title: 'Audit',
        nav: 'audit',
        now: deps.now(),
        entries: entries.map(auditEntryView),
        error: query.ok ? undefined : query.error,
        filter: Object.fromEntries(
          ['who', 'action', 'target', 'since', 'until'].map((k) => [k, params.get(k) ?? '']),
        ),
        actions: auditActions,
        nextHref:
          next.has('before') && next.get('before') !== params.get('before')
            ? `/audit?${next.toString()}`
            : undefined,
      }),
    );
  });
  return router;
}
