// The answer to every request the UI listener refuses before a route sees it (host, cross-site,
// content type, authentication, closed reads, /jobs-ui writes), and the reasons the listener counts
// in svc_ui_requests_refused_total. JSON `{"error": ...}` under /api/ like every API error, plain
// text elsewhere; never cached.

import type { Context } from 'koa';

export type RefusalReason =
  | 'host'
  | 'cross_site'
  | 'content_type'
  | 'unauthorized'
  | 'forbidden'
  | 'reads_closed'
  | 'jobs_ui_write'
  | 'body_too_large'
  | 'body_too_deep';

export const refusalReasons: readonly RefusalReason[] = [
  'host',
  'cross_site',
  'content_type',
  'unauthorized',
  'forbidden',
  'reads_closed',
  'jobs_ui_write',
  'body_too_large',
  'body_too_deep',
];

/** Counts one refusal (svc_ui_requests_refused_total{reason}). */
export type CountRefusal = (reason: RefusalReason) => void;

/** Set by whoever refuses a request after the guard (auth, body readers); the guard counts it. */
export interface RefusalState {
  refusal?: RefusalReason;
}

const words: Readonly<Record<number, string>> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  413: 'payload too large',
  415: 'unsupported media type',
};

export function sendRefusal(ctx: Context, status: number, reason: RefusalReason, message: string): void {
  (ctx.state as RefusalState).refusal = reason;
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  const text = `${words[status] ?? 'refused'}: ${message}`;
  if (ctx.path === '/api' || ctx.path.startsWith('/api/')) {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ error: text });
  } else {
    ctx.type = 'text/plain';
    ctx.body = `${text}\n`;
  }
}
