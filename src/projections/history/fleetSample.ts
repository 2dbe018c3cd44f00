// One sample of the fleet for the history charts: the gauges of the status page, agents per config
// state, and message and error rates. Pure: the sampler hands in the agents and the running totals.

import type { AgentState } from '../agent/agentState.ts';
import {
  countedConfigStates,
  type ConfigState,
  type CountedConfigState,
} from '../remoteConfig/configState.ts';

/** The columns of a sample, in order. `unmanaged` agents are the rest of the fleet and not charted. */
export const historySeries = [
  'size',
  'connected',
  'healthy',
  'unhealthy',
  'unknown',
  'pending',
  'applying',
  'applied',
  'failed',
  'rolled_back',
  'incompatible',
  'unsupported',
  'messages_per_second',
  'errors_per_second',
] as const;
export type HistorySeries = (typeof historySeries)[number];

/**
 * Every counted config state is a series: a new state fails to type-check here until the sample
 * layout (a stored column order) says where its count goes.
 */
const sampledConfigStates: readonly (CountedConfigState & HistorySeries)[] = countedConfigStates;

const column = Object.fromEntries(historySeries.map((name, i) => [name, i])) as Record<HistorySeries, number>;

/** Running totals of the OpAMP handler (what svc_opamp_messages_total and _errors_total count). */
export interface TrafficTotals {
  readonly messages: number;
  readonly errors: number;
}

/** Per second between two readings of a running total; 0 over no time or when the total went back. */
export function ratePerSecond(before: number, after: number, elapsedMs: number): number {
  if (elapsedMs <= 0 || after < before) return 0;
  return ((after - before) * 1000) / elapsedMs;
}

/** Counts taken agent by agent (a sample may be taken over several turns), then one sample. */
export interface FleetTally {
  add(agent: AgentState): void;
  sample(rates: { messages: number; errors: number }): Float64Array;
}

/**
 * Counts over every registered agent, as /api/status counts them (health of disconnected agents is
 * what they last reported), so the charts end where the status page's numbers stand. Plain integer
 * counters: it runs over the whole fleet every 10 s.
 */
export function createFleetTally(configStateOf: (agent: AgentState) => ConfigState): FleetTally {
  let size = 0;
  let connected = 0;
  let healthy = 0;
  let unhealthy = 0;
  const states = {
    unmanaged: 0,
    unsupported: 0,
    pending: 0,
    applying: 0,
    applied: 0,
    failed: 0,
    rolled_back: 0,
    incompatible: 0,
  };
  return {
    add(agent) {
      size++;
      if (agent.connected) connected++;
      if (agent.health !== null) {
        if (agent.health.healthy) healthy++;
        else unhealthy++;
      }
      states[configStateOf(agent)]++;
    },
    sample(rates) {
      const sample = new Float64Array(historySeries.length);
      sample[column.size] = size;
      sample[column.connected] = connected;
      sample[column.healthy] = healthy;
      sample[column.unhealthy] = unhealthy;
      sample[column.unknown] = size - healthy - unhealthy;
      for (const state of sampledConfigStates) sample[column[state]] = states[state];
      sample[column.messages_per_second] = rates.messages;
      sample[column.errors_per_second] = rates.errors;
      return sample;
    },
  };
}
