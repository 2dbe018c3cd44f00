// Client-certificate authorization for the UI and telemetry listeners (SPEC "Authentication").
// Installed first in each koa app so nothing (API, pages, /static, /jobs-ui) is reachable around it.
//
// UI listener, when ui_tls.client_ca_file is set: every path needs an identity whose role is not
// `none`; `viewer` may read (GET, HEAD, OPTIONS); every other method, POST /api/jobs among them,
// needs `admin`. Telemetry listener, when telemetry_tls.client_ca_file is set: /healthz and /readyz
// stay open; everything else (/metrics, /metrics/fleet, /debug/pprof/*) needs a mapped identity.
// Without a client CA the middleware lets everything through: there is no identity to check.

import type { Context, Middleware, Next } from 'koa';
import { peerIdentity, type RolePolicy } from '../io/tls/peerIdentity.ts';

export interface AuthOptions extends RolePolicy {
  /** Whether the listener verifies client certificates (its *_tls.client_ca_file is set). */
  readonly enabled: boolean;
  /** Sees every refusal (debug logging). Authentication metrics do not exist (SPEC "Metrics"). */
  readonly onDenied?: ((path: string, reason: string) => void) | undefined;
}

/** Set on ctx.state for handlers after the middleware (e.g. to log who created a job). */
export interface AuthState {
  spiffeId?: string;
  role?: 'viewer' | 'admin';
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const openTelemetryPaths = new Set(['/healthz', '/readyz']);

function deny(ctx: Context, reason: string, options: AuthOptions): void {
  options.onDenied?.(ctx.path, reason);
  ctx.status = 403;
  ctx.set('Cache-Control', 'no-store');
  if (ctx.path.startsWith('/api/')) ctx.body = { error: `forbidden: ${reason}` };
  else {
    ctx.type = 'text/plain';
    ctx.body = `forbidden: ${reason}\n`;
  }
}

function authorize(ctx: Context, options: AuthOptions, needsAdmin: boolean): boolean {
  const identity = peerIdentity(ctx.req.socket, options);
  if (!identity.ok) {
    deny(ctx, identity.reason, options);
    return false;
  }
  if (identity.role === 'none') {
    deny(ctx, `no role for ${identity.spiffeId}`, options);
    return false;
  }
  if (needsAdmin && identity.role !== 'admin') {
    deny(ctx, `${identity.spiffeId} has role ${identity.role}; ${ctx.method} needs admin`, options);
    return false;
  }
  const state = ctx.state as AuthState;
  state.spiffeId = identity.spiffeId;
  state.role = identity.role;
  return true;
}

export function createUiAuth(options: AuthOptions): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!options.enabled || authorize(ctx, options, !readMethods.has(ctx.method))) await next();
  };
}

export function createTelemetryAuth(options: AuthOptions): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!options.enabled || openTelemetryPaths.has(ctx.path) || authorize(ctx, options, false)) await next();
  };
}
