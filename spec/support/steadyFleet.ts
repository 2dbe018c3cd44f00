// Simulator settings for specs that manage agents rather than test the simulator: a small fleet that
// connects at once, never flaps or churns, carries 10 attributes and a 128-byte effective config, and
// applies a remote config in 20 ms. A spec names only what it needs to differ.

import type { FleetOptions } from '../../tools/simulate/fleet.ts';

export type SteadyFleetOptions = Omit<FleetOptions, 'url'>;

export function steadyFleet(overrides: Partial<SteadyFleetOptions> = {}): SteadyFleetOptions {
  return {
    agents: 6,
    transport: 'ws',
    gateways: 0,
    heartbeatMs: 300,
    flapRate: 0,
    configBytes: 128,
    attributes: 10,
    churnPerSecond: 0,
    rampPerSecond: 0,
    localAddresses: [],
    applyMs: 20,
    ...overrides,
  };
}
