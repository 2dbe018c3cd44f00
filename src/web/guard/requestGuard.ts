// The UI listener's first middleware: it applies requestRules.ts to every request (API, pages,
// /static, /jobs-ui) before authentication or any route runs, and counts every refusal made on the
// listener, its own and those recorded later in ctx.state.refusal (authentication, closed reads,
// bodies too large or too deep, /jobs-ui writes), in one counter.

import type { Context, Middleware, Next } from 'koa';
import { originOf, refusalOf, type RequestHeaders, type RequestPolicy } from './requestRules.ts';
import { sendRefusal, type CountRefusal, type RefusalState } from './refusal.ts';

function headersOf(ctx: Context): RequestHeaders {
  const length = Number(ctx.get('Content-Length') || '0');
  return {
    method: ctx.method,
    path: ctx.path,
    host: ctx.get('Host'),
    origin: ctx.get('Origin'),
    fetchSite: ctx.get('Sec-Fetch-Site'),
    contentType: ctx.get('Content-Type'),
    hasBody: ctx.get('Transfer-Encoding') !== '' || !(length === 0),
  };
}

export function createRequestGuard(configured: RequestPolicy, count: CountRefusal): Middleware {
  // `https://console.example/` in the config is the origin `https://console.example`.
  const allowedOrigins = configured.allowedOrigins.map((o) => originOf(o) ?? o);
  const policy = { ...configured, allowedOrigins };
  return async (ctx: Context, next: Next) => {
    const refusal = refusalOf(headersOf(ctx), policy);
    if (refusal !== undefined) {
      sendRefusal(ctx, refusal.status, refusal.reason, refusal.error);
      count(refusal.reason);
      return;
    }
    try {
      await next();
    } finally {
      const state = ctx.state as RefusalState;
      if (state.refusal !== undefined) count(state.refusal);
      else if (ctx.status === 413) count('body_too_large');
    }
  };
}
