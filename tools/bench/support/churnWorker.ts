// The queries scenario's fleet, in a worker thread of its own: it registers the agents over HTTP,
// then keeps the fleet churning (reports of changes, round-robin, and new agents that report once)
// until it is told to stop. A fleet of 100,000 load agents is a large heap whose collections pause
// the thread that holds it for up to ~100 ms; in its own isolate those pauses no longer delay the
// timed requests of the main thread, so the latencies measured are the server's.

import { parentPort, workerData } from 'node:worker_threads';
import { createHttpPool } from './loadClients.ts';
import { createLoadAgent } from './statusMix.ts';

export interface ChurnSettings {
  readonly url: string;
  readonly agents: number;
  readonly changesPerSecond: number;
  readonly newPerSecond: number;
  readonly localAddresses: readonly string[];
}

export interface ChurnCounts {
  changes: number;
  registrations: number;
  errors: number;
}

/** Worker → main thread. */
export type ChurnReport =
  | { readonly type: 'registered'; readonly seconds: number; readonly failed: number }
  | { readonly type: 'counts'; readonly counts: ChurnCounts }
  | { readonly type: 'stopped' };

/** Main thread → worker. */
export type ChurnRequest = { readonly type: 'counts' } | { readonly type: 'stop' };

const tickMs = 100;

async function run(settings: ChurnSettings): Promise<void> {
  const port = parentPort!;
  const pool = await createHttpPool(settings.url, {
    connections: 64,
    localAddresses: settings.localAddresses,
  });
  const fleet = Array.from({ length: settings.agents }, (_, i) =>
    createLoadAgent(i, 'realistic', { keepDescriptions: false }),
  );
  const t0 = performance.now();
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (next < fleet.length) if ((await pool.post(fleet[next++]!.first())) !== 200) failed++;
    }),
  );
  port.postMessage({
    type: 'registered',
    seconds: (performance.now() - t0) / 1000,
    failed,
  } satisfies ChurnReport);

  const counts: ChurnCounts = { changes: 0, registrations: 0, errors: 0 };
  const send = (body: Uint8Array, kind: 'changes' | 'registrations') =>
    void pool.post(body).then((status) => (status === 200 ? counts[kind]++ : counts.errors++));
  let turn = 0;
  let debt = { changes: 0, registrations: 0 };
  const timer = setInterval(() => {
    debt = {
      changes: debt.changes + (settings.changesPerSecond * tickMs) / 1000,
      registrations: debt.registrations + (settings.newPerSecond * tickMs) / 1000,
    };
    for (; debt.changes >= 1; debt.changes--) send(fleet[turn++ % fleet.length]!.next(), 'changes');
    for (; debt.registrations >= 1; debt.registrations--)
      send(createLoadAgent(fleet.length + counts.registrations, 'realistic').first(), 'registrations');
  }, tickMs);

  port.on('message', (request: ChurnRequest) => {
    if (request.type === 'counts') port.postMessage({ type: 'counts', counts } satisfies ChurnReport);
    else {
      clearInterval(timer);
      void pool.close().then(() => {
        port.postMessage({ type: 'stopped' } satisfies ChurnReport);
        port.close();
      });
    }
  });
}

if (parentPort) await run(workerData as ChurnSettings);
