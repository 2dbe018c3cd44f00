// The throughput scenario's load generator in a process of its own, started by loadProcess.ts: in
// the benchmark's process its CPU would go unaccounted while the server's is counted, and it would
// share that process's event loop with everything else the benchmark does. It opens the connections
// it is given (loadClients.ts), says when they are all sending, answers count requests and stops
// when told.

import { runHttpLoad, runWsLoad, type LoadCounters, type StopLoad } from './loadClients.ts';
import type { StatusMix } from './statusMix.ts';

export interface LoadSettings {
  readonly transport: 'ws' | 'http';
  readonly url: string;
  /** WebSocket connections, or HTTP agents (one keep-alive connection each). */
  readonly connections: number;
  /** WebSocket messages in flight per socket. */
  readonly window: number;
  readonly mix: StatusMix;
  readonly localAddresses: readonly string[];
  readonly token?: string;
}

/** Parent → child. */
export type LoadRequest = { readonly type: 'counts' } | { readonly type: 'stop' };

/** Child → parent. */
export type LoadReport =
  | { readonly type: 'ready' }
  | { readonly type: 'counts'; readonly counts: LoadCounters }
  | { readonly type: 'stopped' };

async function run(settings: LoadSettings): Promise<void> {
  const counters: LoadCounters = { replies: 0, errors: 0 };
  const common = {
    mix: settings.mix,
    localAddresses: settings.localAddresses,
    ...(settings.token !== undefined && { token: settings.token }),
  };
  const stop: StopLoad =
    settings.transport === 'ws'
      ? await runWsLoad(
          settings.url,
          { ...common, connections: settings.connections, window: settings.window },
          counters,
        )
      : await runHttpLoad(settings.url, { ...common, agents: settings.connections }, counters);
  const send = (report: LoadReport) => process.send!(report);
  process.on('message', (request: LoadRequest) => {
    if (request.type === 'counts') send({ type: 'counts', counts: { ...counters } });
    else
      void stop().then(() => {
        send({ type: 'stopped' });
        process.disconnect();
      });
  });
  send({ type: 'ready' });
}

if (process.send) {
  process.on('disconnect', () => process.exit(0));
  await run(JSON.parse(process.argv[2]!) as LoadSettings);
}
