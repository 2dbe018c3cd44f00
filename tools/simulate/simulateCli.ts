// `npx node tools/simulate.ts` (npm run simulate): runs a simulated fleet against an OpAMP server,
// shows a live progress line on stderr and prints a summary on stdout. Usage in docs/tools.md.

import { parseArgs } from 'node:util';
import { parseByteSize } from '../../src/io/config/byteSize.ts';
import { parseDuration } from '../../src/projections/units/duration.ts';
import { createFleet, type FleetOptions, type FleetSnapshot } from './fleet.ts';

export const simulateUsage = `usage: simulate [options]
  --url URL            OpAMP server base URL (default http://127.0.0.1:4320)
  --agents N           number of agents (default 100)
  --transport T        ws | http | mix (default ws; mix = every other agent over HTTP)
  --gateway            relay the WebSocket agents through one simulated gateway connection
  --gateways K         ... or through K gateway connections
  --heartbeat D        heartbeat interval, e.g. 30s (default 30s)
  --flap-rate P        probability per heartbeat that an agent's health flips (default 0.01)
  --config-size S      effective config size, e.g. 1024 or 1KiB (default 1KiB)
  --attributes N       description attributes per agent (default 10)
  --churn R            disconnects, restarts and replacements per second (default 0)
  --ramp R             new agents per second while ramping up; 0 = at once (default 1000)
  --duration D         stop after D once ramped up, e.g. 60s; 0 = until Ctrl-C (default 0)
  --sources N          spread connections over source addresses 127.0.0.1 .. 127.0.0.N (default 1)
  --apply-ms D         time an agent takes to apply a remote config (reports APPLYING meanwhile; default 50ms)
  --config-fail-rate P share of agents that report FAILED for every remote config (default 0)
  --config-rollback-rate P
                       share of agents that roll back every remote config after their first and
                       report the one before APPLIED, as the supervisor does (default 0)
  --json               print the summary as JSON`;

export class UsageError extends Error {}

function positive(
  name: string,
  text: string,
  parse: (t: string) => number | undefined,
  allowZero = false,
): number {
  const n = parse(text);
  if (n === undefined || Number.isNaN(n) || n < 0 || (!allowZero && n === 0))
    throw new UsageError(`--${name} ${text}: not a valid value`);
  return n;
}

const num = (t: string) => (/^\d+(\.\d+)?$/.test(t) ? Number(t) : undefined);

export function parseSimulateArgs(argv: readonly string[]): {
  fleet: FleetOptions;
  durationMs: number;
  json: boolean;
} {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:4320' },
      agents: { type: 'string', default: '100' },
      transport: { type: 'string', default: 'ws' },
      gateway: { type: 'boolean', default: false },
      gateways: { type: 'string' },
      heartbeat: { type: 'string', default: '30s' },
      'flap-rate': { type: 'string', default: '0.01' },
      'config-size': { type: 'string', default: '1KiB' },
      attributes: { type: 'string', default: '10' },
      churn: { type: 'string', default: '0' },
      ramp: { type: 'string', default: '1000' },
      duration: { type: 'string', default: '0' },
      sources: { type: 'string', default: '1' },
      'apply-ms': { type: 'string', default: '50ms' },
      'config-fail-rate': { type: 'string', default: '0' },
      'config-rollback-rate': { type: 'string', default: '0' },
      json: { type: 'boolean', default: false },
    },
  });
  const transport = values.transport;
  if (transport !== 'ws' && transport !== 'http' && transport !== 'mix')
    throw new UsageError(`--transport ${transport}: ws, http or mix`);
  const flapRate = positive('flap-rate', values['flap-rate'], num, true);
  if (flapRate > 1) throw new UsageError('--flap-rate is a probability between 0 and 1');
  const configFailRate = positive('config-fail-rate', values['config-fail-rate'], num, true);
  if (configFailRate > 1) throw new UsageError('--config-fail-rate is a share between 0 and 1');
  const configRollbackRate = positive('config-rollback-rate', values['config-rollback-rate'], num, true);
  if (configRollbackRate > 1) throw new UsageError('--config-rollback-rate is a share between 0 and 1');
  const sources = positive('sources', values.sources, num);
  if (sources > 254) throw new UsageError('--sources at most 254');
  try {
    new URL(values.url);
  } catch {
    throw new UsageError(`--url ${values.url}: not a URL`);
  }
  return {
    fleet: {
      url: values.url,
      agents: Math.floor(positive('agents', values.agents, num)),
      transport,
      gateways:
        values.gateways !== undefined
          ? Math.floor(positive('gateways', values.gateways, num, true))
          : values.gateway
            ? 1
            : 0,
      heartbeatMs: positive('heartbeat', values.heartbeat, parseDuration),
      flapRate,
      configBytes: positive(
        'config-size',
        values['config-size'],
        (t) => parseByteSize(/^\d+$/.test(t) ? Number(t) : t),
        true,
      ),
      attributes: Math.floor(positive('attributes', values.attributes, num, true)),
      churnPerSecond: positive('churn', values.churn, num, true),
      rampPerSecond: positive('ramp', values.ramp, num, true),
      localAddresses: sources === 1 ? [] : Array.from({ length: sources }, (_, i) => `127.0.0.${i + 1}`),
      applyMs: positive('apply-ms', values['apply-ms'], parseDuration, true),
      configFailRate,
      configRollbackRate,
    },
    durationMs: positive('duration', values.duration, parseDuration, true),
    json: values.json,
  };
}

export function progressLine(s: FleetSnapshot, perSecond: number): string {
  const configs =
    s.configs.applied + s.configs.applying + s.configs.failed > 0
      ? ` · configs applied ${s.configs.applied} applying ${s.configs.applying} failed ${s.configs.failed}`
      : '';
  return `connected ${s.connected}/${s.agents} · ${Math.round(perSecond)} msg/s · replies ${s.replies} · errors ${s.errors} · p99 ${s.latencyMs.p99} ms${configs}`;
}

export async function runSimulateCli(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(`${simulateUsage}\n`);
    return 0;
  }
  const { fleet: options, durationMs, json } = parseSimulateArgs(argv);
  const fleet = createFleet(options);
  const tty = process.stderr.isTTY;
  let last = { at: performance.now(), sent: 0 };
  let lines = 0;
  const progress = setInterval(() => {
    const s = fleet.snapshot();
    const now = performance.now();
    const rate = ((s.sent - last.sent) * 1000) / (now - last.at);
    last = { at: now, sent: s.sent };
    if (tty) process.stderr.write(`\r\x1b[K${progressLine(s, rate)}`);
    else if (lines++ % 5 === 0) process.stderr.write(`${progressLine(s, rate)}\n`);
  }, 1000);
  const began = performance.now();
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  await Promise.race([fleet.start(), stopped]);
  const rampedMs = performance.now() - began;
  if (durationMs > 0) setTimeout(() => stop(), durationMs).unref();
  await stopped;
  clearInterval(progress);
  const s = fleet.snapshot();
  const seconds = (performance.now() - began) / 1000;
  await fleet.stop();
  const summary = {
    ...s,
    ramp_up_ms: Math.round(rampedMs),
    seconds: Math.round(seconds * 10) / 10,
    messages_per_second: Math.round(s.sent / seconds),
  };
  if (tty) process.stderr.write('\n');
  process.stdout.write(
    json
      ? `${JSON.stringify(summary)}\n`
      : `${Object.entries(summary)
          .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join('\n')}\n`,
  );
  return 0;
}
