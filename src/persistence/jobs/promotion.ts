// Making a rollout's revision the config's current one (docs/jobs.md "Finishing"), inside the
// caller's transaction: the step that finishes a rollout, or an operator's promote. The NOTIFY on
// svc_configs goes out with the commit, and the caller reloads this replica's configs only after it,
// so nobody hears of a promotion that rolled back.

import type pg from 'pg';
import { notifySql } from '../database/notifications.ts';
import { configsChannel, makeCurrentSql } from '../configs/configSql.ts';

/** False when the config is gone (deleted, or never in the database). */
export async function makeCurrentIn(
  client: pg.ClientBase,
  config: string,
  revision: number,
  at: number,
): Promise<boolean> {
  const { rowCount } = await client.query(makeCurrentSql(config, revision, at));
  if (rowCount === 0) return false;
  await client.query(notifySql(configsChannel, config));
  return true;
}
