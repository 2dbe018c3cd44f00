// A service replica as a real child process (`node src/main.ts -config FILE`) on loopback ports,
// for the scale-out and fault specs. stop() is a graceful SIGTERM; kill() is kill -9.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/postgres.ts';
import { eventually } from './eventually.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Replica {
  readonly name: string;
  readonly opamp: string;
  readonly ui: string;
  readonly telemetry: string;
  /** Everything the process wrote to stderr (its log). */
  log(): string;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startReplica(
  name: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Replica> {
  const [opampPort, uiPort, telemetryPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), `svc-replica-${name}-`));
  const file = join(dir, 'config.yaml');
  const full = {
    listeners: {
      opamp: `127.0.0.1:${opampPort}`,
      ui: `127.0.0.1:${uiPort}`,
      telemetry: `127.0.0.1:${telemetryPort}`,
    },
    shutdown: { drain_delay: '0s' },
    log: { level: 'info', format: 'json' },
    ...config,
  };
  // JSON is YAML.
  writeFileSync(file, JSON.stringify(full));
  const child: ChildProcess = spawn(process.execPath, ['src/main.ts', '-config', file], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const replica: Replica = {
    name,
    opamp: `http://127.0.0.1:${opampPort}`,
    ui: `http://127.0.0.1:${uiPort}`,
    telemetry: `http://127.0.0.1:${telemetryPort}`,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      cleanup();
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      cleanup();
    },
  };
  const died = exited.then(() => {
    throw new Error(`replica ${name} exited before it was ready: ${stderr}`);
  });
  try {
    await Promise.race([
      died,
      eventually(
        async () => (await fetch(`${replica.telemetry}/readyz`)).status === 200,
        `replica ${name} to be ready`,
        { timeoutMs: 30_000 },
      ),
    ]);
  } catch (error) {
    await replica.kill();
    throw error;
  } finally {
    died.catch(() => undefined);
  }
  return replica;
}
