// /debug/pprof/* on the telemetry listener, mounted only when debug.pprof_enabled (otherwise the paths
// do not exist: 404). Same paths and formats as Go's net/http/pprof, so `go tool pprof`, Pyroscope
// and similar tools read them: gzipped pprof protobuf.

import type Router from '@koa/router';
import type { Profiler } from './profiler.ts';

/** CPU profile length: Go's default, and a bound that keeps a request from holding the profiler for long. */
export const defaultSeconds = 30;
export const maxSeconds = 300;

const index = `<!DOCTYPE html>
<html><head><title>/debug/pprof/</title></head><body>
<p>/debug/pprof/</p>
<p>Profiles (gzipped pprof protobuf; read them with <code>go tool pprof URL</code>):</p>
<ul>
<li><a href="profile?seconds=${defaultSeconds}">profile</a>: CPU profile; <code>?seconds=N</code> (1 to ${maxSeconds}, default ${defaultSeconds})</li>
<li><a href="heap">heap</a>: sampled live heap allocations</li>
</ul>
</body></html>
`;

/** Seconds from the query, or undefined when it is not an integer in 1..maxSeconds. */
export function parseSeconds(raw: string | string[] | undefined): number | undefined {
  if (raw === undefined) return defaultSeconds;
  if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= maxSeconds ? n : undefined;
}

const download = (name: string) => ({
  'Content-Type': 'application/octet-stream',
  'Content-Disposition': `attachment; filename="${name}"`,
  'X-Content-Type-Options': 'nosniff',
});

export function mountPprof(router: Router, profiler: Profiler): void {
  router.get(['/debug/pprof', '/debug/pprof/'], (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = index;
  });

  router.get('/debug/pprof/profile', async (ctx) => {
    const seconds = parseSeconds(ctx.query.seconds);
    if (seconds === undefined) return ctx.throw(400, `seconds must be an integer from 1 to ${maxSeconds}`);
    // A client that goes away ends its profile early; nothing is answered then.
    const gone = new AbortController();
    ctx.res.once('close', () => gone.abort());
    const result = await profiler.cpu(seconds, gone.signal);
    if (!result.ok) {
      if (result.reason === 'busy') return ctx.throw(409, 'a CPU profile is already running');
      // Expected during shutdown (or when the client left): an answer, not an error to report.
      ctx.status = 503;
      ctx.body = 'profile cut short: the service is stopping';
      return;
    }
    ctx.set(download('profile'));
    ctx.body = result.pprof;
  });

  router.get('/debug/pprof/heap', async (ctx) => {
    const pprof = await profiler.heap();
    ctx.set(download('heap'));
    ctx.body = pprof;
  });
}
