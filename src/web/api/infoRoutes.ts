// GET /api/status and the attribute listings. Both read the local registry: the status describes
// this replica, and attribute suggestions do not merge the store (SPEC names only agent reads in
// durability rules 3-4).

import type { Context } from 'koa';
import { fleetCounts } from '../../projections/registry/fleetCounts.ts';
import { attributeKeys, attributeValues } from '../views/attributesView.ts';
import { statusView } from '../views/statusView.ts';
import { observed, type ApiDeps, type ApiRouter } from './apiDeps.ts';
import { sendJson } from './jsonResponse.ts';

const single = (ctx: Context, key: string): string | undefined =>
  new URLSearchParams(ctx.querystring).get(key) ?? undefined;

export function infoRoutes(router: ApiRouter, deps: ApiDeps): void {
  router.get('/api/status', observed('/api/status', deps), (ctx) => {
    const view = statusView(
      deps.build,
      deps.startedAt,
      deps.now(),
      fleetCounts(deps.registry.values()),
      deps.agentAuthentication,
    );
    sendJson(ctx, 200, view);
  });

  router.get('/api/attributes', observed('/api/attributes', deps), (ctx) => {
    sendJson(ctx, 200, { keys: attributeKeys(deps.registry.values(), single(ctx, 'prefix')) });
  });

  router.get('/api/attributes/values', observed('/api/attributes/values', deps), (ctx) => {
    const key = single(ctx, 'key');
    if (key === undefined || key === '') return ctx.throw(400, 'key is required');
    sendJson(ctx, 200, { key, values: attributeValues(deps.registry.values(), key, single(ctx, 'prefix')) });
  });
}
