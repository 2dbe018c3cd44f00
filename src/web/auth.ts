// Client-certificate authorization for the UI listener (SPEC "Authentication"). Installed first in
// the koa app so nothing (API, pages, /static, /jobs-ui) is reachable around it.
//
// When ui_tls.client_ca_file is set, every path needs an identity whose role is not `none`; `viewer`
// may read (GET, HEAD, OPTIONS); every other method, POST /api/jobs among them, needs `admin`.
// Without a client CA the middleware lets everything through: there is no identity to check.

import type { Context, Middleware, Next } from 'koa';
import { decideAccess, peerIdentity, type RolePolicy } from '../io/tls/peerIdentity.ts';

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

export function createUiAuth(options: AuthOptions): Middleware {
  return async (ctx: Context, next: Next) => {
    if (!options.enabled) {
      await next();
      return;
    }
    const adminFor = readMethods.has(ctx.method) ? undefined : ctx.method;
    const access = decideAccess(peerIdentity(ctx.req.socket, options), adminFor);
    if (!access.ok) return deny(ctx, access.reason, options);
    const state = ctx.state as AuthState;
    state.spiffeId = access.spiffeId;
    state.role = access.role;
    await next();
  };
}
