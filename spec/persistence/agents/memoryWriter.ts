// An in-memory AgentWriter collaborator for the flusher and session-refresh specs: records each
// batch, can fail, can decline saves as the agent row's guard does, and can hold a write open until
// the spec releases it.

import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import type { AgentWriter, BatchResult } from '../../../src/persistence/agents/agentWriter.ts';
import type { Eviction } from '../../../src/projections/changeTracker/changeTracker.ts';
import type { AliveTimes } from '../../../src/persistence/agents/sessionLedger.ts';

export class MemoryWriter implements AgentWriter {
  readonly saves: string[][] = [];
  readonly deletes: Eviction[][] = [];
  readonly sessions: AgentState[][] = [];
  /** The alive times each session batch was written with. */
  readonly sessionAlive: AliveTimes[] = [];
  failing = false;
  /** Saves of these agents go through but change no row (the guard declines them). */
  readonly declining = new Set<string>();
  /** Session writes fail (saves do as `failing` says). */
  failSessions = false;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  /** The next writes wait until release(). */
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  private async result(uids: string[], declined: ReadonlySet<string> = new Set()): Promise<BatchResult> {
    await this.gate;
    if (this.failing)
      return { done: [], failed: uids, applied: new Set(), error: new Error('database down') };
    return { done: uids, failed: [], applied: new Set(uids.filter((uid) => !declined.has(uid))) };
  }

  saveAgents(agents: readonly AgentState[]): Promise<BatchResult> {
    if (agents.length === 0) return Promise.resolve({ done: [], failed: [], applied: new Set() });
    this.saves.push(agents.map((a) => a.uid).sort());
    return this.result(
      agents.map((a) => a.uid),
      this.declining,
    );
  }

  softDeleteAgents(evictions: readonly Eviction[]): Promise<BatchResult> {
    if (evictions.length === 0) return Promise.resolve({ done: [], failed: [], applied: new Set() });
    this.deletes.push([...evictions]);
    return this.result(evictions.map((e) => e.uid));
  }

  saveSessions(agents: readonly AgentState[], alive: AliveTimes = new Map()): Promise<BatchResult> {
    this.sessions.push([...agents]);
    this.sessionAlive.push(alive);
    const uids = agents.map((a) => a.uid);
    if (this.failSessions)
      return Promise.resolve({ done: [], failed: uids, applied: new Set(), error: new Error('down') });
    return this.result(uids);
  }

  purge(): Promise<number> {
    return Promise.resolve(0);
  }
}
