// The job-queue UI (SPEC durability rule 22, UI listener `/jobs-ui/...`): pg-boss's own dashboard,
// a Fetch-style handler, bridged into koa. It is created only when database.host is set, and the UI
// listener mounts it behind the same authentication as every other path there. The dashboard's own
// credential check stays off: the listener authenticates, and its request guard and write rule
// (src/web/guard) decide who may post here. Bodies are capped; reads carry none.

import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Context, Middleware, Next } from 'koa';
import { readCappedBody } from '../../io/http/readCappedBody.ts';

export const jobsUiBasePath = '/jobs-ui';

export type FetchHandler = (request: Request) => Promise<Response>;

export interface JobsUi {
  readonly middleware: Middleware;
  close(): Promise<void>;
}

const isUnder = (path: string) => path === jobsUiBasePath || path.startsWith(`${jobsUiBasePath}/`);

/** The dashboard's own requests are small JSON; the JSON API's smallest cap is about this size. */
export const maxJobsUiBodyBytes = 64 * 1024;

const bodiless = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The body to pass on: none for reads (never read), 'too large' past the cap (never held whole). */
async function readBody(ctx: Context): Promise<Buffer | undefined | 'too large'> {
  if (bodiless.has(ctx.method)) return undefined;
  return (await readCappedBody(ctx.req, maxJobsUiBodyBytes)) ?? 'too large';
}

function toRequest(ctx: Context, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const init: RequestInit = { method: ctx.method, headers };
  if (body !== undefined) init.body = body;
  return new Request(new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host}`), init);
}

function writeResponse(ctx: Context, response: Response): void {
  ctx.status = response.status;
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie' && name !== 'content-length') ctx.set(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) ctx.set('set-cookie', cookies);
  ctx.body =
    response.body === null ? null : Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  // Setting the body may reset the status of an empty answer; the dashboard's status stands.
  ctx.status = response.status;
}

/** Koa middleware answering everything under /jobs-ui and passing every other path on. */
export function bridgeFetchHandler(handler: FetchHandler): Middleware {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!isUnder(ctx.path)) {
      await next();
      return;
    }
    const body = await readBody(ctx);
    if (body === 'too large') {
      ctx.status = 413;
      ctx.set('Connection', 'close');
      ctx.type = 'text/plain';
      ctx.body = `payload too large: the job-queue UI takes bodies of at most ${maxJobsUiBodyBytes} bytes\n`;
      return;
    }
    const response = await handler(toRequest(ctx, body));
    writeResponse(ctx, response);
  };
}

/** Loads the dashboard (only when persistence is on: the module is never imported otherwise). */
export async function createJobsUi(url: string, schema: string): Promise<JobsUi> {
  const { createDashboardHandler } = await import('@pg-boss/dashboard/handler');
  const handler = createDashboardHandler({ databases: [{ url, schema }], basePath: jobsUiBasePath });
  return { middleware: bridgeFetchHandler(handler), close: () => handler.close() };
}
