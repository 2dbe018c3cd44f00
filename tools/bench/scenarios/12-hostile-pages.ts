// Pages built from hostile text (issue 23: one agent's report once froze the service for 7.6 s): an
// agent reports effective configs made to be expensive to show (100,000 newlines without a content
// type; 1 MiB of newlines, of " \n" as text/plain and of escaped quotes as JSON), and a 1 MiB text/plain
// remote config is served from remote_config.dir. Each page is fetched while /healthz is asked again
// and again on a second connection. Measured per page: its time, the server's CPU for it (no
// synchronous task can hold the event loop longer than that), and the slowest /healthz answered
// meanwhile (wall time: on a loaded machine it measures the neighbours too, so the load is stated).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import type { BenchContext, ResultRow, Scenario } from '../scenario.ts';
import { bytesField, concat, messageField, varintField } from '../support/protoWriter.ts';
import { median, round } from '../support/numbers.ts';
import { cpuSeconds } from '../support/procStats.ts';

const MiB = 1024 * 1024;

type Files = Record<string, { body: string; contentType: string }>;

/** One AgentToServer with ReportsEffectiveConfig and these files as its effective config. */
function report(uid: string, files: Files): Buffer {
  const entries = Object.entries(files).map(([name, f]) =>
    messageField(
      1,
      bytesField(1, name),
      messageField(2, bytesField(1, f.body), bytesField(2, f.contentType)),
    ),
  );
  return concat(
    bytesField(1, Buffer.from(uid.replaceAll('-', ''), 'hex')),
    varintField(2, 1),
    varintField(4, 0x1 | 0x4),
    messageField(6, messageField(1, ...entries)),
  );
}

async function registerAgent(opampUrl: string, files: Files): Promise<string> {
  const uid = randomUUID();
  const res = await fetch(`${opampUrl}/v1/opamp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-protobuf' },
    body: report(uid, files),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`the report answered ${res.status}`);
  return uid;
}

/** Fetches `url` while /healthz is asked in a loop; the page's time and the slowest /healthz. */
async function meanwhile(url: string, healthz: string) {
  let done = false;
  const t0 = performance.now();
  const page = fetch(url)
    .then(async (res) => ({ status: res.status, bytes: (await res.arrayBuffer()).byteLength }))
    .finally(() => (done = true));
  let slowest = 0;
  do {
    const t = performance.now();
    await (await fetch(healthz)).arrayBuffer();
    slowest = Math.max(slowest, performance.now() - t);
  } while (!done);
  const { status, bytes } = await page;
  return { ms: performance.now() - t0, slowest, status, bytes };
}

async function run(ctx: BenchContext): Promise<ResultRow[]> {
  const dir = join(ctx.dir, `hostile-${Date.now()}`);
  mkdirSync(dir);
  const body = '\n'.repeat(MiB - 16);
  writeFileSync(
    join(dir, 'blank.yaml'),
    JSON.stringify({ selector: 'env=x', content_type: 'text/plain', body }),
  );
  // The hostile reports are bigger than a report without a credential may be by default
  // (opamp.max_unauthenticated_message_bytes): raised to the message bound, as for open-mode agents
  // whose reports are that large.
  const server = await ctx.startService({
    remote_config: { dir },
    opamp: { max_unauthenticated_message_bytes: '16MiB' },
  });
  try {
    const pages: [string, string][] = [
      [
        'agent page: 100,000 newlines, no content type',
        `/agents/${await registerAgent(server.opampUrl, { '': { body: '\n'.repeat(100_000), contentType: '' } })}`,
      ],
      [
        'agent page: three 1 MiB worst cases',
        `/agents/${await registerAgent(server.opampUrl, {
          newlines: { body: '\n'.repeat(MiB), contentType: '' },
          spaces: { body: ' \n'.repeat(MiB / 2), contentType: 'text/plain' },
          escapes: { body: `{"${'\\"'.repeat(120_000)}`, contentType: 'application/json' },
        })}`,
      ],
      ['config page: 1 MiB text/plain body', '/configs/blank'],
    ];
    const rows: ResultRow[] = [];
    for (const [name, path] of pages) {
      // The first fetch compiles the page's template and code: not the cost measured.
      await meanwhile(`${server.uiUrl}${path}`, `${server.telemetryUrl}/healthz`);
      const runs = [];
      for (let i = 0; i < ctx.runs; i++) {
        const cpu0 = cpuSeconds(server.pid);
        const r = await meanwhile(`${server.uiUrl}${path}`, `${server.telemetryUrl}/healthz`);
        if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
        runs.push({ ...r, cpuMs: (cpuSeconds(server.pid) - cpu0) * 1000 });
      }
      rows.push({
        page: name,
        'page KiB': round(runs[0]!.bytes / 1024),
        'page ms': round(median(runs.map((r) => r.ms))),
        'server CPU ms': round(median(runs.map((r) => r.cpuMs))),
        'slowest /healthz meanwhile ms': round(median(runs.map((r) => r.slowest)), 1),
      });
    }
    return rows;
  } finally {
    await server.stop();
  }
}

const scenario: Scenario = {
  order: 12,
  name: 'hostile-pages',
  title: 'Pages of hostile agent- and operator-supplied text, with /healthz asked meanwhile',
  async run(ctx) {
    const load = loadavg()[0]!;
    const rows = await run(ctx);
    const worst = Math.max(...rows.map((r) => Number(r['server CPU ms'])));
    return {
      rows,
      conditions: [
        `medians of ${ctx.runs} runs per page after one warm-up fetch; server CPU from /proc in 10 ms ticks`,
        'service without persistence; /healthz asked in a loop on the telemetry listener while the page is fetched',
        `load average ${round(load, 1)} on ${cpus().length} cores when the scenario started`,
      ],
      goals: [
        `server CPU per hostile page ≤ 100 ms, so /healthz waits at most that long: ${worst <= 100 ? 'met' : 'not met'} (most ${worst} ms)`,
      ],
    };
  },
};

export default scenario;
