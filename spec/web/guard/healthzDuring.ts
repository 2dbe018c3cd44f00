// Asks the telemetry listener's /healthz again and again while a hostile request is being served: the
// service runs in this process, and every /healthz asked meanwhile must answer 200 (a request that
// crashed or wedged the process would fail them). How long the event loop is held is a performance
// figure, measured by the `hostile-pages` benchmark (tools/bench/scenarios/12-hostile-pages.ts), not
// asserted here: on a shared machine, time measures the neighbours as much as the service.

import { raw } from './rawHttp.ts';

export interface Meanwhile<T> {
  readonly result: T;
  /** How many /healthz answered 200 while the work was in flight (at least one). */
  readonly healthy: number;
}

export async function healthzDuring<T>(telemetryUrl: string, work: () => Promise<T>): Promise<Meanwhile<T>> {
  let done = false;
  const running = work().finally(() => (done = true));
  let healthy = 0;
  do {
    const r = await raw(`${telemetryUrl}/healthz`);
    if (r.status !== 200) throw new Error(`/healthz answered ${r.status}`);
    healthy++;
  } while (!done);
  return { result: await running, healthy };
}
