// Client-certificate authorization for the telemetry listener (SPEC "Authentication" 3): when
// telemetry_tls.client_ca_file is set, /healthz and /readyz stay open and everything else
// (/metrics, /metrics/fleet, /debug/pprof/*) needs an identity whose role is not `none`.

import type { Context, Middleware, Next } from 'koa';
import { decideAccess, peerIdentity, type RolePolicy } from '../io/tls/peerIdentity.ts';

export interface TelemetryAuthOptions extends RolePolicy {
  /** Whether the listener verifies client certificates. */
  readonly enabled: boolean;
  readonly onDenied?: ((path: string, reason: string) => void) | undefined;
}

const openPaths = new Set(['/healthz', '/readyz']);

export function createTelemetryAuth(options: TelemetryAuthOptions): Middleware {
  return async (ctx: Context, next: Next) => {
    const access =
      options.enabled && !openPaths.has(ctx.path)
        ? decideAccess(peerIdentity(ctx.req.socket, options))
        : undefined;
    if (access === undefined || access.ok) {
      await next();
      return;
    }
    options.onDenied?.(ctx.path, access.reason);
    ctx.status = 403;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain';
    ctx.body = `forbidden: ${access.reason}\n`;
  };
}
