// GET /status and GET /partials/status: fleet counts and build identity (SPEC "Status summary"),
// built from the same statusView as GET /api/status so the page and the API never disagree.

import type Router from '@koa/router';
import { fleetCounts } from '../../projections/registry/fleetCounts.ts';
import { statusView } from '../views/statusView.ts';
import { historyFor } from './historyFragment.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';

/** Health split of the connected and disconnected agents as bar segments (SVG widths, no inline style). */
function segments(fleet: { total: number; healthy: number; unhealthy: number; health_unknown: number }) {
  const parts = [
    { name: 'healthy', value: fleet.healthy },
    { name: 'unhealthy', value: fleet.unhealthy },
    { name: 'unknown', value: fleet.health_unknown },
  ];
  let x = 0;
  return parts.map((p) => {
    const width = fleet.total === 0 ? 0 : (p.value / fleet.total) * 100;
    const segment = { ...p, x: x.toFixed(3), width: width.toFixed(3) };
    x += width;
    return segment;
  });
}

function statusLocals(deps: PagesDeps) {
  const now = deps.now();
  const status = statusView(
    deps.build,
    deps.startedAtMs,
    now,
    fleetCounts(deps.registry.values()),
    deps.agentAuthentication,
  );
  return {
    now,
    status,
    uptimeMs: status.uptime_seconds * 1000,
    segments: segments(status.fleet),
    pollUrl: '/partials/status',
  };
}

export function mountStatusPage(router: Router, deps: PagesDeps): void {
  router.get('/status', (ctx) => {
    const locals = { title: 'Status', nav: 'status', ...statusLocals(deps), history: historyFor(deps, ctx) };
    sendHtml(ctx, 200, deps.render('status', locals));
  });
  router.get('/partials/status', (ctx) => {
    sendHtml(ctx, 200, deps.render('partials/status', statusLocals(deps)));
  });
}
