// Binding on PostgreSQL, many ids at a time (issue 33: a gateway relays thousands of new agents, each
// a new id). Concurrent bind() calls are queued and answered by batches of at most `maxBatch` distinct
// ids, at most `maxInFlight` batches at a time, no id in two of them: a batch's certificate records
// are read in one statement, its ids taken or read in one (bindBatchSql.ts takeSql), and the holders
// that change (the same holder's new serial, an agent moving to its own certificate) changed in one
// more. Each id's outcome is decided by the same pure rule as the in-memory store (decideBind), each
// change conditional on the row it read, so replicas racing for one id agree as before: the first
// committed credential holds it. An id whose row changed meanwhile goes back to the queue, in front
// of what was asked after it; an id asked again while in flight waits for its batch to end, so no two
// statements write one id at once. A statement that fails rejects every bind of its batch (the
// admission refuses them: the store is unavailable).

import type pg from 'pg';
import type { AgentCredential } from '../../projections/identity/agentCredential.ts';
import type { BindOutcome, IssuedCertificate } from '../../projections/identity/credentialStore.ts';
import { decideBind } from '../../projections/identity/decideBind.ts';
import {
  changeHoldersSql,
  certificatesBySerialSql,
  takeSql,
  type BindAskRow,
  type HolderChange,
} from './bindBatchSql.ts';
import { bindingFromRow, certificateFromRow, rowsOf } from './credentialRows.ts';

export interface BindBatchOptions {
  /** Distinct ids in one statement at most. */
  readonly maxBatch: number;
  /** Batches in flight at most (each holds one pool connection at a time). */
  readonly maxInFlight: number;
  /** A lost race (the row changed between read and change) is decided again; more is a fault. */
  readonly maxAttempts: number;
  /** Told the size of every batch sent (a metric, a spec). */
  readonly onBatch?: ((ids: number) => void) | undefined;
}

interface Ask extends BindAskRow {
  attempts: number;
  /** The record of the certificate presented, once read (the first batch reads it). */
  certificate: IssuedCertificate | undefined | 'unread';
  readonly resolve: (outcome: BindOutcome) => void;
  readonly reject: (error: unknown) => void;
}

export type BindMany = (
  uid: BindAskRow['uid'],
  credential: AgentCredential,
  at: number,
) => Promise<BindOutcome>;

export function createBindBatch(pool: pg.Pool, options: BindBatchOptions): BindMany {
  let queue: Ask[] = [];
  let workers = 0;
  /** The ids of the batches in flight: none goes into another batch meanwhile. */
  const flying = new Set<string>();

  /**
   * The first `maxBatch` distinct ids of the queue not in flight, in order (marked in flight); the
   * rest stay queued, in order.
   */
  function next(): Ask[] {
    const batch: Ask[] = [];
    const rest: Ask[] = [];
    for (let i = 0; i < queue.length; i++) {
      const ask = queue[i]!;
      if (batch.length >= options.maxBatch) {
        for (let j = i; j < queue.length; j++) rest.push(queue[j]!);
        break;
      }
      if (flying.has(ask.uid)) rest.push(ask);
      else {
        flying.add(ask.uid);
        batch.push(ask);
      }
    }
    queue = rest;
    return batch;
  }

  /** Reads the records of the certificates presented for the first time. */
  async function readCertificates(batch: readonly Ask[]): Promise<void> {
    const unread = batch.filter((a) => a.certificate === 'unread');
    for (const ask of unread) if (ask.credential.serial === undefined) ask.certificate = undefined;
    const serials = [...new Set(unread.flatMap((a) => a.credential.serial ?? []))];
    if (serials.length === 0) return;
    const records = new Map<string, IssuedCertificate>();
    for (const row of await rowsOf(pool, certificatesBySerialSql(serials))) {
      const record = certificateFromRow(row);
      records.set(record.serial, record);
    }
    for (const ask of unread)
      if (ask.credential.serial !== undefined) ask.certificate = records.get(ask.credential.serial);
  }

  /** Decides the batch's ids; returns those to ask again. */
  async function decide(batch: readonly Ask[]): Promise<Ask[]> {
    await readCertificates(batch);
    const certificateOf = (ask: Ask) => (ask.certificate === 'unread' ? undefined : ask.certificate);
    const toTake: Ask[] = [];
    for (const ask of batch) {
      // What refuses the credential whatever the id's row refuses it before the id could be taken.
      const { uid, credential } = ask;
      const unbound = decideBind({ uid, credential, existing: undefined, certificate: certificateOf(ask) });
      if (unbound.action === 'refuse') ask.resolve(unbound.outcome);
      else toTake.push(ask);
    }
    if (toTake.length === 0) return [];
    const found = new Map<string, { taken: boolean; row: unknown[] }>();
    for (const [taken, ...row] of await rowsOf(pool, takeSql(toTake)))
      found.set(row[0] as string, { taken: taken as boolean, row });
    const again: Ask[] = [];
    const changes: (HolderChange & { ask: Ask })[] = [];
    for (const ask of toTake) {
      const hit = found.get(ask.uid);
      if (hit === undefined) {
        again.push(ask); // committed by another replica after the statement began: read it next time
        continue;
      }
      const binding = bindingFromRow(hit.row);
      if (hit.taken) {
        ask.resolve({ outcome: 'bound', binding });
        continue;
      }
      const { uid, credential } = ask;
      const decision = decideBind({ uid, credential, existing: binding, certificate: certificateOf(ask) });
      if (decision.action === 'refuse') ask.resolve(decision.outcome);
      // Not with a row read ('insert'), never without a credential ('open'): decide again.
      else if (decision.action === 'insert' || decision.action === 'open') again.push(ask);
      else changes.push({ ...ask, ask, from: binding.credential!, takeover: decision.action === 'takeover' });
    }
    if (changes.length === 0) return again;
    const changed = new Map<string, unknown[]>();
    for (const row of await rowsOf(pool, changeHoldersSql(changes))) changed.set(row[0] as string, row);
    for (const { ask } of changes) {
      const row = changed.get(ask.uid);
      if (row === undefined) again.push(ask);
      else ask.resolve({ outcome: 'bound', binding: bindingFromRow(row) });
    }
    return again;
  }

  /**
   * Sends batches while the queue holds an id not in flight. One that finds only ids in flight ends:
   * the batches holding them take them once they are done.
   */
  async function work(): Promise<void> {
    for (let batch = next(); batch.length > 0; batch = next()) {
      options.onBatch?.(batch.length);
      let again: Ask[];
      try {
        again = await decide(batch);
      } catch (error) {
        // Already answered ones ignore it (a promise settles once).
        for (const ask of batch) ask.reject(error);
        again = [];
      }
      for (const ask of batch) flying.delete(ask.uid);
      const retried: Ask[] = [];
      for (const ask of again) {
        if (++ask.attempts < options.maxAttempts) retried.push(ask);
        else
          ask.reject(new Error(`binding of ${ask.uid} kept changing under ${options.maxAttempts} attempts`));
      }
      queue = retried.concat(queue);
    }
    workers--;
  }

  return (uid, credential, at) =>
    new Promise<BindOutcome>((resolve, reject) => {
      queue.push({ uid, credential, at, attempts: 0, certificate: 'unread', resolve, reject });
      // Started after the current turn, so the binds asked in it (one socket read) go together.
      if (workers < options.maxInFlight) {
        workers++;
        queueMicrotask(() => void work());
      }
    });
}
