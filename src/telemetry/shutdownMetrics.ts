// svc_shutdown_sockets_terminated_total on the server registry: WebSockets cut at shutdown because
// their close had not completed within shutdown.close_timeout after the going-away close frame
// (app.ts stop). The telemetry listener still answers while they are cut, so a last scrape sees it.

import { Counter, type Registry as PromRegistry } from 'prom-client';

export type CountShutdownCut = (sockets: number) => void;

export function registerShutdownMetrics(register: PromRegistry): CountShutdownCut {
  const terminated = new Counter({
    name: 'svc_shutdown_sockets_terminated_total',
    help: 'WebSockets terminated at shutdown because they did not close within shutdown.close_timeout of the close frame.',
    registers: [register],
  });
  return (sockets) => terminated.inc(sockets);
}
