// Starts the whole service in-process on free loopback ports, for integration specs.

import { createApp, type App, type AppDeps } from '../../src/app.ts';
import { loadConfig } from '../../src/io/config/loadConfig.ts';
import { silentLogger } from '../../src/io/logger.ts';

export interface StartOptions {
  /** Config keys, as in the YAML file (durations as text, e.g. { fleet: { heartbeat_interval: '1s' } }). */
  readonly config?: Record<string, unknown>;
  readonly deps?: Partial<AppDeps>;
}

const loopback = { opamp: '127.0.0.1:0', ui: '127.0.0.1:0', telemetry: '127.0.0.1:0' };

export async function startApp(options: StartOptions = {}): Promise<App> {
  const overrides = { shutdown: { drain_delay: '0s' }, ...options.config };
  const listeners = { ...loopback, ...((overrides as { listeners?: object }).listeners ?? {}) };
  const config = loadConfig({ overrides: { ...overrides, listeners } });
  const app = createApp(config, { logger: silentLogger(), ...options.deps });
  await app.start();
  return app;
}
