// A simulated fleet (tools/simulate/fleet.ts) in a process of its own, started by fleetProcess.ts:
// the load generator of a large scenario must not share the benchmark process, whose timed API
// requests its garbage collections and socket work would otherwise delay, nor flatter the server by
// running in a thread that the measurement ignores. It starts the fleet it is given, answers
// snapshot requests, and stops when told.

import { createFleet, type FleetOptions, type FleetSnapshot } from '../../simulate/fleet.ts';

/** Parent → child. */
export type FleetRequest = { readonly type: 'snapshot' } | { readonly type: 'stop' };

/** Child → parent. */
export type FleetReport =
  | { readonly type: 'started' }
  | { readonly type: 'snapshot'; readonly snapshot: FleetSnapshot }
  | { readonly type: 'stopped' };

const send = (report: FleetReport) => process.send!(report);

if (process.send) {
  const options = JSON.parse(process.argv[2]!) as FleetOptions;
  const fleet = createFleet(options);
  process.on('message', (request: FleetRequest) => {
    if (request.type === 'snapshot') send({ type: 'snapshot', snapshot: fleet.snapshot() });
    else
      void fleet.stop().then(() => {
        send({ type: 'stopped' });
        process.disconnect();
      });
  });
  // Parent gone (the benchmark was interrupted): nothing left to measure.
  process.on('disconnect', () => process.exit(0));
  void fleet.start().then(() => send({ type: 'started' }));
}
