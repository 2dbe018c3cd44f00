// Servers under test, each in its own process: this service (started as `npm start -- -config FILE`
// starts it, from package.json's start script, but without npm's and the shell's processes, so the
// PID measured is the server's), or one of the bare baselines in tools/bench/bare/. Every listener is
// on 127.0.0.1.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { settled } from './procStats.ts';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface ServerProcess {
  readonly kind: string;
  readonly pid: number;
  /** OpAMP base URL (http://127.0.0.1:port). */
  readonly opampUrl: string;
  readonly uiUrl: string;
  readonly telemetryUrl: string;
  stop(): Promise<void>;
}

function waitForLine(
  child: ChildProcess,
  stream: NodeJS.ReadableStream,
  match: (line: string) => Record<string, string> | undefined,
  what: string,
) {
  return new Promise<Record<string, string>>((resolve, reject) => {
    const lines = createInterface({ input: stream });
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 30 s`)), 30_000);
    lines.on('line', (line) => {
      const found = match(line);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code} before it was ready`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

/**
 * package.json's start script, `[NAME=value ...] node [flag ...] src/main.ts`, as environment and
 * arguments: the benchmarks run the service exactly as `npm start` does.
 */
export function startCommand(): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let i = 0;
  for (; /^[A-Z_][A-Z0-9_]*=/.test(words[i] ?? ''); i++) {
    const at = words[i]!.indexOf('=');
    env[words[i]!.slice(0, at)] = words[i]!.slice(at + 1);
  }
  if (words[i] !== 'node' || words.at(-1) !== 'src/main.ts')
    throw new Error(
      `the start script is not [NAME=value ...] node [flag ...] src/main.ts: ${pkg.scripts.start}`,
    );
  return { env, args: words.slice(i + 1) };
}

/** Starts the service with `config` (YAML keys as an object) merged over bench defaults; resolves once it has settled. */
export async function startService(
  dir: string,
  config: Record<string, unknown> = {},
): Promise<ServerProcess> {
  const file = join(dir, `service-${Date.now()}.json`);
  const base = {
    listeners: { opamp: '127.0.0.1:0', ui: '127.0.0.1:0', telemetry: '127.0.0.1:0' },
    log: { level: 'info', format: 'json' },
    shutdown: { drain_delay: '0s' },
    opamp: { max_connections: 200_000 },
  };
  // JSON is YAML: the config loader reads it as it is.
  writeFileSync(file, JSON.stringify({ ...base, ...config }));
  const start = startCommand();
  const child = spawn(process.execPath, [...start.args, '-config', file], {
    cwd: repoRoot,
    env: { ...process.env, ...start.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const urls = await waitForLine(
    child,
    child.stderr,
    (line) => {
      if (!line.includes('"listening"')) return undefined;
      const parsed = JSON.parse(line) as Record<string, string>;
      return parsed.opamp ? parsed : undefined;
    },
    'the service',
  );
  forwardErrors(child);
  await settled(child.pid!);
  return {
    kind: 'service',
    pid: child.pid!,
    opampUrl: urls.opamp!,
    uiUrl: urls.ui!,
    telemetryUrl: urls.telemetry!,
    stop: stopper(child),
  };
}

/**
 * The service's error lines reach the benchmark's stderr (at most 20 per process), so a figure that
 * a failed request cut short comes with its cause; every other line is read and dropped.
 */
function forwardErrors(child: ChildProcess): void {
  let left = 20;
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (left === 0 || !/"level":(50|60|"error"|"fatal")/.test(line)) return;
    left--;
    process.stderr.write(`service ${child.pid}: ${line.slice(0, 2000)}\n`);
  });
}

/** Starts a bare baseline server (tools/bench/bare/<name>.ts), which prints {"url": ...} when ready; resolves once it has settled. */
export async function startBare(name: 'bareWsServer' | 'bareHttpServer'): Promise<ServerProcess> {
  const child = spawn(process.execPath, [join(repoRoot, `tools/bench/bare/${name}.ts`)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { url } = await waitForLine(
    child,
    child.stdout,
    (line) => (line.startsWith('{') ? (JSON.parse(line) as Record<string, string>) : undefined),
    name,
  );
  await settled(child.pid!);
  return { kind: name, pid: child.pid!, opampUrl: url!, uiUrl: '', telemetryUrl: '', stop: stopper(child) };
}
