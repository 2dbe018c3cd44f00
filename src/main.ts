// Entry point: `node src/main.ts [-config FILE] [-record FILE]`. `-record FILE` records inbound OpAMP
// traffic to FILE like debug.record_file, and wins over the file and the environment (docs/tools.md).
// Invalid configuration exits 2 before any listener opens; SIGTERM/SIGINT shut down gracefully and exit 0.

import { createApp } from './app.ts';
import { readBuildInfo } from './io/buildInfo.ts';
import { readStringFlags } from './io/config/commandLine.ts';
import { ConfigError, loadConfig } from './io/config/loadConfig.ts';
import { createLogger } from './io/logger.ts';
import { releaseStartupGarbage } from './io/startupGarbage.ts';

async function main(): Promise<void> {
  let config;
  try {
    const flags = readStringFlags(process.argv.slice(2), ['config', 'record']);
    const overrides = flags.record === undefined ? undefined : { debug: { record_file: flags.record } };
    config = loadConfig({ file: flags.config, env: process.env, ...(overrides && { overrides }) });
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.log);
  // The environment is read here and by the config loader only (SVC_BUILD_COMMIT).
  const app = createApp(config, { logger, build: readBuildInfo(process.env) });
  // Signal handlers go in before start(): a signal during startup waits for it, then shuts down.
  let started: Promise<void> = Promise.resolve();
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    started
      .then(() => app.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  started = app.start();
  try {
    await started;
  } catch (error) {
    logger.error({ err: error }, 'could not start');
    process.exit(1);
  }
  releaseStartupGarbage();
}

await main();
