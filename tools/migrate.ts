// `npm run migrate [-- -config FILE]`: applies both schema migrators (the service's numbered files in
// migrations/ and pg-boss's own) under the same advisory lock the service takes at startup, then
// exits. Configuration loads as for the service (defaults, -config file, SVC_ environment).

import { readStringFlags } from '../src/io/config/commandLine.ts';
import { ConfigError, loadConfig } from '../src/io/config/loadConfig.ts';
import { createLogger } from '../src/io/logger.ts';
import { connectionSettings } from '../src/persistence/database/connectionSettings.ts';
import { createBoss } from '../src/persistence/jobs/jobQueue.ts';
import { runMigrations } from '../src/persistence/database/migrate.ts';
import { createPools } from '../src/persistence/database/pools.ts';

async function main(): Promise<number> {
  let config;
  try {
    const flags = readStringFlags(process.argv.slice(2), ['config']);
    config = loadConfig({ file: flags.config, env: process.env });
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    return 2;
  }
  const logger = createLogger(config.log);
  if (config.database.host === '') {
    logger.error('database.host is not set: nothing to migrate');
    return 2;
  }
  const settings = connectionSettings(config.database);
  const pools = createPools(settings, { poolMax: 2, readTimeoutMs: 5000, logger });
  // Migrate only: no maintenance, no schedules, no workers.
  const boss = createBoss(pools.write, logger, { migrate: true, run: false });
  try {
    await runMigrations(settings, async () => {
      await boss.start();
      await boss.stop({ graceful: false, close: false });
    });
    logger.info({ host: config.database.host, dbname: config.database.dbname }, 'migrations applied');
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'migration failed');
    return 1;
  } finally {
    await pools.end();
  }
}

process.exitCode = await main();
