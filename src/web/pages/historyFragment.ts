// GET /partials/history?window=1h|24h: the fleet-over-time charts, polled on the status and fleet
// pages. `historyFor` gives both pages the same locals, so the fragment is what the page embeds.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { historyLocals, parseHistoryWindow } from './charts/historyCharts.ts';
import { sendHtml, type PagesDeps } from './pageContext.ts';

export function historyFor(deps: PagesDeps, ctx: Context) {
  const window = parseHistoryWindow(ctx.query['window']);
  return historyLocals(deps.history?.read(window), deps.now(), window, deps.history?.read('1h'));
}

export function mountHistoryFragment(router: Router, deps: PagesDeps): void {
  router.get('/partials/history', (ctx) => {
    sendHtml(ctx, 200, deps.render('partials/history', { history: historyFor(deps, ctx) }));
  });
}
