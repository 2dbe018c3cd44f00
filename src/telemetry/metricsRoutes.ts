// /metrics (server registry) and /metrics/fleet (fleet registry) on the telemetry listener, in the
// Prometheus text exposition format.

import type Router from '@koa/router';
import type { Registry as PromRegistry } from 'prom-client';

export function mountMetrics(
  router: Router,
  registries: { server: PromRegistry; fleet: PromRegistry },
): void {
  const routes = [
    ['/metrics', registries.server],
    ['/metrics/fleet', registries.fleet],
  ] as const;
  for (const [path, registry] of routes) {
    router.get(path, async (ctx) => {
      const text = await registry.metrics();
      ctx.type = registry.contentType;
      ctx.body = text;
    });
  }
}
