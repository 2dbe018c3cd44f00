// The session-refresh pass (SPEC durability rule 9): every `passMs` (5 s), rewrite the session row
// of the agents whose row is due (sessionLedger.ts). This is how a sibling keeps seeing a live agent
// as connected (rule 10), a quiet one whose WebSocket here answers pings included (its alive time
// moves with the pongs), and how a sweep-detected disconnect, which changes no agent row (rule 14),
// reaches the session row. The walk yields the event loop every walkSlice agents. Guarded timer: a
// pass never overlaps the previous one; stop() waits for the pass in flight.

import type { SchedulerLike, Subscription } from 'rxjs';
import type { Logger } from '../../io/logger.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import type { Registry } from '../../projections/registry/registryProjection.ts';
import type { AgentWriter } from './agentWriter.ts';
import type { SessionLedger } from './sessionLedger.ts';
import { nextTurn, walkSlice } from '../../io/nextTurn.ts';

export const sessionPassMs = 5000;

export interface SessionRefresherDeps {
  readonly registry: Registry;
  readonly writer: AgentWriter;
  readonly ledger: SessionLedger;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  readonly passMs?: number;
}

export interface SessionRefresher {
  /** Runs one pass now unless one is running (specs). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

export function createSessionRefresher(deps: SessionRefresherDeps): SessionRefresher {
  const { registry, writer, ledger, scheduler, logger } = deps;
  const passMs = deps.passMs ?? sessionPassMs;
  let running: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    const now = scheduler.now();
    const due: AgentState[] = [];
    // In instance_uid order, the order the writer takes its rows in (so it need not sort them), in
    // slices with a turn of the event loop between them: at 100,000 agents one walk took up to
    // 280 ms. An agent that left the registry meanwhile is passed over.
    const ordered = registry.orderedSnapshot();
    for (let start = 0; start < ordered.length; start += walkSlice) {
      if (start > 0) await nextTurn();
      const end = Math.min(ordered.length, start + walkSlice);
      for (let i = start; i < end; i++) {
        const agent = ordered.at(i)!;
        if (ledger.isDue(agent, now) && (start === 0 || registry.get(agent.uid) === agent)) due.push(agent);
      }
    }
    if (due.length === 0) return;
    // The alive times are taken once: what is recorded is what was written.
    const alive = ledger.aliveTimes(due);
    const result = await writer.saveSessions(due, alive);
    const byUid = new Map(due.map((a) => [a.uid as string, a]));
    for (const uid of result.done) {
      const agent = byUid.get(uid);
      if (agent !== undefined) ledger.record(agent, alive);
    }
    if (result.failed.length > 0) {
      logger.warn(
        { err: result.error, agents: result.failed.length },
        'session refresh failed; retried next pass',
      );
    }
  }

  function pass(): Promise<void> {
    running ??= refresh()
      .catch((error: unknown) => logger.error({ err: error }, 'session refresh failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  const timer: Subscription = scheduler.schedule(function tick() {
    void pass();
    this.schedule(undefined, passMs);
  }, passMs);

  return {
    pass,
    async stop(): Promise<void> {
      timer.unsubscribe();
      while (running !== undefined) await running;
    },
  };
}
