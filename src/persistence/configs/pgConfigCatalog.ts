// The config catalog on PostgreSQL (docs/remote-config.md "Where configs live"): every write is a
// transaction that takes the next revision number under a precondition (the revision the writer
// based its change on), stores the immutable revision with its author, and notifies svc_configs so
// every replica reloads at once (configSync.ts). A lost race answers 409 with the newest revision.

import type pg from 'pg';
import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type {
  ConfigCatalog,
  ConfigSummary,
  ConfigWrite,
  WriteOutcome,
} from '../../projections/remoteConfig/configCatalog.ts';
import { bodyHashOf } from '../../projections/remoteConfig/desiredConfig.ts';
import type { ConfigDocument } from '../../projections/remoteConfig/validateConfig.ts';
import { notifySql } from '../database/notifications.ts';
import type { Sql } from '../database/sql.ts';
import { inTransaction } from '../database/transaction.ts';
import {
  configStateSql,
  configsChannel,
  createConfigSql,
  insertRevisionSql,
  listConfigsSql,
  nextRevisionSql,
  removeConfigSql,
  revisionsSql,
} from './configSql.ts';
import { revisionFromRow, summaryFromRow } from './configRows.ts';

/** A finished rollout makes its revision current in its own step's transaction (jobs/promotion.ts). */
export type PgConfigCatalog = ConfigCatalog;

const rowsOf = async (client: pg.ClientBase | pg.Pool, sql: Sql) =>
  (await client.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

export function createPgConfigCatalog(pool: pg.Pool, now: () => number): PgConfigCatalog {
  function record(
    name: string,
    revision: number,
    document: ConfigDocument,
    meta: { author: string; draft: boolean; restoredFrom: number | null; at: number },
  ): ConfigRevisionRecord {
    return {
      name,
      revision,
      ...document,
      bodyHash: bodyHashOf(document.body),
      author: meta.author,
      createdAt: meta.at,
      draft: meta.draft,
      restoredFrom: meta.restoredFrom,
    };
  }

  /** Why a conditional write found no row: 404 unknown or deleted, else 409 with the newest revision. */
  async function refusal(client: pg.ClientBase, name: string, base: number | null): Promise<WriteOutcome> {
    const [row] = await rowsOf(client, configStateSql(name));
    if (row === undefined || row[1] === true) return { ok: false, status: 404, error: `no config ${name}` };
    const latestRevision = row[0] as number;
    return {
      ok: false,
      status: 409,
      error: `config ${name} is at revision ${latestRevision}, not ${base ?? '?'}: reload it and apply your change again`,
      latestRevision,
    };
  }

  async function summary(client: pg.ClientBase | pg.Pool, name: string): Promise<ConfigSummary> {
    const [row] = await rowsOf(client, listConfigsSql(name));
    return summaryFromRow(row!);
  }

  /** The shared tail of every write: store the revision, notify, answer with the config. */
  async function store(client: pg.ClientBase, r: ConfigRevisionRecord): Promise<WriteOutcome> {
    await client.query(insertRevisionSql(r));
    await client.query(notifySql(configsChannel, r.name));
    return { ok: true, config: await summary(client, r.name) };
  }

  async function write(
    name: string,
    doc: ConfigDocument,
    base: number | null,
    meta: { author: string; draft: boolean; restoredFrom: number | null },
  ): Promise<WriteOutcome> {
    const at = now();
    return inTransaction(pool, async (client) => {
      const [row] = await rowsOf(client, nextRevisionSql(name, base, meta.draft, at));
      if (row === undefined) return refusal(client, name, base);
      return store(client, record(name, row[0] as number, doc, { ...meta, at }));
    });
  }

  return {
    source: 'database',
    readOnly: undefined,
    list: async () => (await rowsOf(pool, listConfigsSql())).map(summaryFromRow),
    get: async (name) => {
      const [row] = await rowsOf(pool, listConfigsSql(name));
      return row && summaryFromRow(row);
    },
    revisions: async (name) => {
      const rows = await rowsOf(pool, revisionsSql(name));
      return rows.length === 0 ? undefined : rows.map((row) => revisionFromRow(row));
    },
    revision: async (name, revision) => {
      const [row] = await rowsOf(pool, revisionsSql(name, revision));
      return row && revisionFromRow(row);
    },
    create: (name: string, w: ConfigWrite) => {
      const at = now();
      return inTransaction(pool, async (client) => {
        const [row] = await rowsOf(client, createConfigSql(name, w.draft, at));
        if (row === undefined) return { ok: false, status: 409, error: `config ${name} already exists` };
        const meta = { author: w.author, draft: w.draft, restoredFrom: null, at };
        return store(client, record(name, row[0] as number, w.document, meta));
      });
    },
    update: (name, w, base) =>
      write(name, w.document, base, { author: w.author, draft: w.draft, restoredFrom: null }),
    restore: async (name, revision, author, base) => {
      const [row] = await rowsOf(pool, revisionsSql(name, revision));
      if (row === undefined)
        return { ok: false, status: 404, error: `config ${name} has no revision ${revision}` };
      const { selector, body, contentType, enabled } = revisionFromRow(row);
      const doc = { selector, body, contentType, enabled };
      return write(name, doc, base ?? null, { author, draft: false, restoredFrom: revision });
    },
    remove: (name, author, base) =>
      inTransaction(pool, async (client) => {
        const before = await rowsOf(client, listConfigsSql(name));
        const [row] = await rowsOf(client, removeConfigSql(name, base ?? null, author, now()));
        if (row === undefined || before[0] === undefined) return refusal(client, name, base ?? null);
        await client.query(notifySql(configsChannel, name));
        return { ok: true, config: summaryFromRow(before[0]) };
      }),
    problems: () => [],
  };
}
