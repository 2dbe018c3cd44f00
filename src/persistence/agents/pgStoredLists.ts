// Fleet lists answered by PostgreSQL at request time (SPEC durability rules 4, 5, 10), on the read
// pool: the replica keeps nothing per stored agent, so its memory does not grow with the stored
// fleet, and a sibling's flush is visible to the next list once it committed.
//
// A scan reads candidates in instance_uid order, in chunks past a keyset position (never OFFSET),
// with the filter's SQL conditions (filterSql.ts); every candidate is judged again by the compiled
// filter (RE2 for regexes), so the database only narrows what the service reads. A count is one
// count(*) when the conditions are exact, and otherwise a scan that counts (its cost grows with the
// candidates the conditions leave; docs/persistence.md).
//
// The eviction mask (evictionMask.ts) follows the bus: an agent this replica evicted is hidden
// until a read that started after its soft delete was written has completed.

import type pg from 'pg';
import type { Observable } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { FleetFilter } from '../../projections/filter/fleetFilter.ts';
import type { Sql } from '../database/sql.ts';
import { agentFromListRow } from './agentFromRow.ts';
import { compileValueTest } from '../../projections/filter/compileMatcher.ts';
import type { FilterTerm } from '../../projections/filter/filterTerm.ts';
import {
  countFirstParam,
  countedTotalOrRows,
  countedTotalSql,
  countedValuesSql,
  countSql,
  distinctValuesSql,
  pageCandidatesSql,
  type Held,
} from './agentListSql.ts';
import { createEvictionMask } from './evictionMask.ts';
import type { HeldRows } from './heldRows.ts';
import { filterSql, type FilterSql, type ResolvedTerm } from './filterSql.ts';
import { createResolutionMemory, isRegexTerm, sameResolution, type Resolution } from './resolutionMemory.ts';
import type { HeldIds, StoredLists } from './storeReader.ts';

export interface StoredListsDeps {
  readonly pool: pg.Pool;
  /** The bus: evictions, returns and soft deletes feed the eviction mask. */
  readonly events$: Observable<FleetEvent>;
  readonly now: () => number;
  readonly logger: Logger;
  readonly disconnectAfterMs: number;
  /** A regex term whose attribute has more distinct candidate values than this is judged row by row. */
  readonly maxDistinctValues?: number;
  /**
   * The registry's agents whose stored rows name this replica (heldRows.ts): their copies are left
   * out by held_by, and only the other held ids are sent. Without it every held id is sent.
   */
  readonly held?: HeldRows;
}

export interface PgStoredLists extends StoredLists {
  /** True when `stored` is the copy of an agent this replica evicted (the single read hides it too). */
  hides(stored: AgentState): boolean;
  /** Wraps one store read so the mask knows when reads start and complete. */
  reading<T>(read: () => Promise<T>): Promise<T>;
  stop(): void;
}

/** Where the ids past `after` start in ascending `sorted`. */
function firstPast(sorted: readonly string[], after: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows per chunk when most candidates may be refused by the service, and the most for any chunk. */
const candidateChunk = 2000;

/** The default of StoredListsDeps.maxDistinctValues. */
const distinctValuesLimit = 10_000;

/** A scan's first chunk of candidates and the conditions its later chunks are read with. */
interface FirstChunk {
  readonly conditions: FilterSql;
  readonly chunk: number;
  readonly rows: unknown[][];
}

export function createPgStoredLists(deps: StoredListsDeps): PgStoredLists {
  const { pool, now, disconnectAfterMs } = deps;
  const maxDistinctValues = deps.maxDistinctValues ?? distinctValuesLimit;
  const mask = createEvictionMask();
  let readsStarted = 0;

  const query = async (sql: Sql) =>
    (await pool.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })).rows;

  /**
   * RE2's verdict on every stored value of each regex term's attribute, so the term becomes an
   * exact membership condition (and a single term's total a sum of counts). The values come from
   * the counts table when the key is counted; a regex PostgreSQL cannot evaluate on a key that is
   * not counted is judged on the distinct values among the other terms' candidates instead, and
   * left unresolved when there are too many. Once per list (the filter object is the request's):
   * its scan and its count share it.
   */
  const resolutions = new WeakMap<FleetFilter, Promise<Resolution>>();
  const memory = createResolutionMemory();
  async function resolve(filter: FleetFilter, at: number): Promise<Resolution> {
    const candidates = filterSql(filter, { firstParam: 3, now: at, disconnectAfterMs });
    const resolved = new Map<FilterTerm, ResolvedTerm>();
    for (const term of filter.terms) {
      if (!isRegexTerm(term)) continue;
      const compiled = compileValueTest(term.matcher);
      if (!compiled.ok) continue;
      const key = term.matcher.key;
      let values: unknown[];
      const counted = await query(countedValuesSql(key, maxDistinctValues + 1));
      if (counted.length === 0 || counted[0]![0] === true) values = counted.map(([, v]) => v);
      else if (candidates.regexTerms.includes(term))
        values = (await query(distinctValuesSql(candidates, key, maxDistinctValues + 1))).map(([v]) => v);
      else continue;
      if (values.length > maxDistinctValues) continue;
      const test = compiled.value;
      const accepted: string[] = [];
      for (const v of values) if (typeof v === 'string' && test(v)) accepted.push(v);
      resolved.set(term, { accepted, acceptsMissing: test(undefined) });
    }
    const resolution = resolved.size > 0 ? resolved : undefined;
    memory.remember(filter, resolution);
    return resolution;
  }

  /**
   * The statement totalling a filter that is one attribute term from the counts table (with the
   * stored copies of held agents taken off; NULL when the key is not counted or the replica holds
   * too many agents for it to pay): undefined when the filter is not one such term or the eviction
   * mask hides agents.
   */
  function countedTotal(filter: FleetFilter, held: HeldIds, at: number, r: Resolution): Sql | undefined {
    const [term] = filter.terms;
    if (filter.terms.length !== 1 || term?.kind !== 'matcher' || mask.size > 0) return undefined;
    const { key, op, value } = term.matcher;
    let accepted: readonly string[];
    if (op === '=') accepted = [value];
    else {
      const resolved = r?.get(term);
      if (resolved === undefined || resolved.acceptsMissing) return undefined;
      accepted = resolved.accepted;
    }
    const conditions = conditionsWith(filter, 4, at, r);
    const heldAgents = deps.held?.members ?? held.ordered().length;
    return countedTotalSql(key, accepted, conditions, heldOf(held), heldAgents);
  }

  function resolution(filter: FleetFilter, at: number): Promise<Resolution> {
    let pending = resolutions.get(filter);
    if (pending === undefined) {
      pending = resolve(filter, at);
      resolutions.set(filter, pending);
    }
    return pending;
  }

  function conditionsWith(filter: FleetFilter, firstParam: number, at: number, r: Resolution): FilterSql {
    const options = { firstParam, now: at, disconnectAfterMs };
    return filterSql(filter, r === undefined ? options : { ...options, resolved: r });
  }

  /**
   * `read` with the filter's resolution. A filter whose regex terms were all resolved before runs
   * `read` with that guess while its resolution is read, and keeps the answer when the two agree;
   * otherwise (and on a first sight of a term) `read` runs after the resolution, with it. `read`
   * must do nothing beyond answering: a guess's answer may be thrown away.
   */
  async function withResolution<T>(
    filter: FleetFilter,
    at: number,
    read: (r: Resolution) => Promise<T>,
  ): Promise<T> {
    if (!filter.terms.some(isRegexTerm)) return read(undefined);
    const fresh = resolution(filter, at);
    const guess = memory.guess(filter);
    if (guess === undefined) return read(await fresh);
    const early = read(guess).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const [actual, answer] = await Promise.all([fresh, early]);
    if (!sameResolution(filter, actual, guess)) return read(actual);
    if (!answer.ok) throw answer.error;
    return answer.value;
  }

  /**
   * What a list leaves out of the store for the registry's `held` agents: with held rows, the rows
   * that name this replica by held_by and the members not confirmed by id (heldRows.ts keeps them,
   * so no list walks the fleet); without, every held id.
   */
  function heldOf(held: HeldIds): Held {
    const rows = deps.held;
    if (rows === undefined) return { uids: held.ordered() };
    return rows.members === 0 ? { uids: [] } : { uids: rows.unconfirmed(), by: rows.name };
  }

  async function reading<T>(read: () => Promise<T>): Promise<T> {
    const started = ++readsStarted;
    const result = await read();
    mask.readCompleted(started);
    return result;
  }

  async function scanRows(
    filter: FleetFilter,
    held: HeldIds,
    visit: (agent: AgentState) => boolean | void,
    chunkHint: number,
  ): Promise<void> {
    const at = now();
    const left = heldOf(held);
    // The first chunk is read with the resolution (withResolution); what is visited, after it.
    const first = await withResolution(filter, at, async (r) => {
      const conditions = conditionsWith(filter, 3, at, r);
      // An exact filter refuses only the registry's and masked agents: a page needs few more rows.
      const chunk = conditions.exact
        ? Math.min(candidateChunk, Math.max(64, chunkHint + 16))
        : candidateChunk;
      return firstChunk(conditions, chunk, left);
    });
    await scanFrom(filter, held, visit, at, left, first);
  }

  /** The first `chunk` candidates under `conditions` (its parameters from $3), leaving out `left`. */
  async function firstChunk(conditions: FilterSql, chunk: number, left: Held): Promise<FirstChunk> {
    return { conditions, chunk, rows: await query(pageCandidatesSql(conditions, '', chunk, left)) };
  }

  /** Visits the candidates chunk by chunk, from `first` (the first chunk, read with `conditions`). */
  async function scanFrom(
    filter: FleetFilter,
    held: HeldIds,
    visit: (agent: AgentState) => boolean | void,
    at: number,
    left: Held,
    first: FirstChunk,
  ): Promise<void> {
    let { chunk, rows } = first;
    let after = '';
    for (;;) {
      for (const row of rows) {
        const agent = agentFromListRow(row, { now: at, disconnectAfterMs });
        after = agent.uid;
        if (mask.hides(agent) || held.has(agent.uid) || !filter.matches(agent)) continue;
        if (visit(agent) === false) return;
      }
      if (rows.length < chunk) return;
      chunk = Math.min(candidateChunk, chunk * 4);
      const past = { ...left, uids: left.uids.slice(firstPast(left.uids, after)) };
      rows = await query(pageCandidatesSql(first.conditions, after, chunk, past));
    }
  }

  function count(filter: FleetFilter, held: HeldIds): Promise<number> {
    const at = now();
    return withResolution(filter, at, (r) => countWith(filter, held, at, r));
  }

  async function countWith(filter: FleetFilter, held: HeldIds, at: number, r: Resolution): Promise<number> {
    const counted = countedTotal(filter, held, at, r);
    const conditions = conditionsWith(filter, countFirstParam, at, r);
    if (!conditions.exact) {
      const [[n]] = counted === undefined ? [[null]] : ((await query(counted)) as [[number | null]]);
      if (n !== null) return n;
      let scanned = 0;
      const left = heldOf(held);
      const first = await firstChunk(conditionsWith(filter, 3, at, r), candidateChunk, left);
      await scanFrom(filter, held, () => void scanned++, at, left, first);
      return scanned;
    }
    const uids: string[] = [];
    const lastSeen: number[] = [];
    mask.forEach((uid, seen) => {
      uids.push(uid);
      lastSeen.push(seen);
    });
    const rows = countSql(conditions, heldOf(held), uids, lastSeen);
    const [[n]] = (await query(counted === undefined ? rows : countedTotalOrRows(counted, rows))) as [
      [number],
    ];
    return n;
  }

  function follow(event: FleetEvent): void {
    try {
      if (event.type === 'AgentEvicted') mask.evicted(event.data.uid, event.data.lastSeen);
      else if (event.type === 'AgentConnected') mask.returned(event.data.uid);
      else if (event.type === 'AgentsSoftDeleted') mask.softDeleted(event.data.uids, readsStarted);
    } catch (error) {
      deps.logger.error({ err: error }, 'eviction mask failed');
    }
  }
  const subscription = deps.events$.subscribe(follow);

  return {
    scan: (filter, held, visit, expected = 0) => reading(() => scanRows(filter, held, visit, expected)),
    count: (filter, held) => reading(() => count(filter, held)),
    hides: (stored) => mask.hides(stored),
    reading,
    stop: () => subscription.unsubscribe(),
  };
}
