// The one error path of /api/*: every failure becomes `{"error": "..."}` with its status and
// Content-Type application/json. HTTP errors (ctx.throw) keep their status and message; anything
// else is a 500 whose details go to the log, not to the client. 5xx messages reach the client only
// when thrown with `expose: true` (our own wording, never an internal error text).

import type { Context } from 'koa';
import type { Logger } from '../../io/logger.ts';
import { toJson } from '../views/json.ts';

export function sendJson(ctx: Context, status: number, value: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = toJson(value);
}

interface HttpErrorLike {
  readonly status: number;
  readonly message: string;
  readonly expose?: boolean;
}

const isHttpError = (e: unknown): e is HttpErrorLike =>
  e instanceof Error && typeof (e as { status?: unknown }).status === 'number';

export function writeError(ctx: Context, error: unknown, logger: Logger): void {
  if (isHttpError(error) && error.status >= 400 && error.status < 600) {
    if (error.status >= 500) logger.error({ err: error, path: ctx.path }, 'api request failed');
    sendJson(ctx, error.status, { error: error.expose === false ? 'internal server error' : error.message });
    return;
  }
  logger.error({ err: error, path: ctx.path }, 'api request failed');
  sendJson(ctx, 500, { error: 'internal server error' });
}
