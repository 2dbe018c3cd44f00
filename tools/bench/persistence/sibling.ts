// A sibling replica's flushes, for the list-mirror benchmark: the service's own writer saving batches
// of changed agents (agent rows, session rows and 1 KiB effective configs, one notification per
// transaction) to the database the service under test reads.

import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { createAgentWriter } from '../../../src/persistence/agents/agentWriter.ts';
import { defaultWritePolicy } from '../../../src/persistence/database/writeOp.ts';
import type { Pools } from '../../../src/persistence/database/pools.ts';
import { sleep } from '../support/numbers.ts';
import { defaultWriteConcurrency, syntheticAgent } from './benchDatabase.ts';

export interface Sibling {
  /** Writes the whole fleet (the rows the service under test does not hold itself). */
  seed(): Promise<void>;
  /** Flushes the next `batch` agents with a new last_seen and `service.version` = `version`. */
  flush(version: string): Promise<number>;
  /** Flushes every `everyMs` until stop() (returns the durations of the flushes, ms). */
  keepFlushing(everyMs: number): { stop(): Promise<number[]> };
}

export function createSibling(pools: Pools, fleetSize: number, batch: number): Sibling {
  const writer = createAgentWriter(pools.write, {
    policy: { ...defaultWritePolicy, timeoutMs: 60_000 },
    observe: () => undefined,
    concurrency: defaultWriteConcurrency(),
  });
  let next = 0;
  let lastSeen = Date.now();

  const versioned = (n: number, at: number, version: string): AgentState => {
    const a = syntheticAgent(n, at);
    const d = a.description!;
    return { ...a, description: { ...d, identifying: { ...d.identifying, 'service.version': version } } };
  };

  async function write(agents: AgentState[]): Promise<void> {
    const result = await writer.saveAgents(agents);
    if (result.failed.length > 0) throw new Error(`sibling flush failed: ${String(result.error)}`);
  }

  async function flush(version: string): Promise<number> {
    lastSeen = Math.max(lastSeen + 1, Date.now());
    const agents = Array.from({ length: batch }, (_, i) =>
      versioned((next + i) % fleetSize, lastSeen, version),
    );
    next = (next + batch) % fleetSize;
    const t = performance.now();
    await write(agents);
    return performance.now() - t;
  }

  return {
    seed: () => write(Array.from({ length: fleetSize }, (_, n) => syntheticAgent(n, lastSeen))),
    flush,
    keepFlushing(everyMs) {
      let running = true;
      const times: number[] = [];
      const loop = (async () => {
        for (let k = 0; running; k++) {
          const started = performance.now();
          times.push(await flush(`busy-${k}`));
          await sleep(Math.max(0, everyMs - (performance.now() - started)));
        }
      })();
      return {
        stop: async () => {
          running = false;
          await loop;
          return times;
        },
      };
    },
  };
}
