// Entry point: `node src/main.ts [-config FILE]`. Invalid configuration exits 2 before any listener
// opens; SIGTERM/SIGINT shut down gracefully and exit 0.

import { parseArgs } from 'node:util';
import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './io/config/loadConfig.ts';
import { createLogger } from './io/logger.ts';

function configFileFromArgs(argv: readonly string[]): string | undefined {
  // Accept the Go-style single dash (-config FILE, -config=FILE) as well as --config.
  const args = argv.map((a) => (/^-config(=|$)/.test(a) ? `-${a}` : a));
  const { values } = parseArgs({ args, options: { config: { type: 'string' } }, strict: true });
  return values.config;
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig({ file: configFileFromArgs(process.argv.slice(2)), env: process.env });
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.log);
  const app = createApp(config, { logger });
  try {
    await app.start();
  } catch (error) {
    logger.error({ err: error }, 'could not start');
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

await main();
