// Timed API reads while something else happens: sequential GETs over a fixed list of queries, round
// robin, until stopped; every answer's latency is kept per query. A request that did not answer 200
// is counted as an error (its time is kept too: a slow refusal is still a slow answer).

import { percentile } from './numbers.ts';

export interface ListProbe {
  /** Stops after the request in flight; resolves with the latencies per query label. */
  stop(): Promise<ProbeResult>;
}

export interface ProbeResult {
  readonly byQuery: ReadonlyMap<string, readonly number[]>;
  readonly all: readonly number[];
  readonly errors: number;
  readonly errorStatuses: readonly number[];
}

export function startListProbe(
  base: string,
  queries: readonly (readonly [label: string, path: string])[],
  headers: Record<string, string>,
): ListProbe {
  const byQuery = new Map<string, number[]>(queries.map(([label]) => [label, []]));
  const all: number[] = [];
  const errorStatuses: number[] = [];
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const [label, path] = queries[i % queries.length]!;
      const t = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${base}${path}`, { headers });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 0;
      }
      const ms = performance.now() - t;
      byQuery.get(label)!.push(ms);
      all.push(ms);
      if (status !== 200) errorStatuses.push(status);
      // A refused connection answers at once: pause rather than spin while the server is away.
      if (status === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { byQuery, all, errors: errorStatuses.length, errorStatuses };
    },
  };
}

export const p99 = (values: readonly number[]) => percentile(values, 0.99);
