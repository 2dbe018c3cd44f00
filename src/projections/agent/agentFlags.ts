// An agent's boolean filter facts as bits of one small number, kept by the registry per agent so a
// list filtered by `healthy`, `connected` or `via_gateway` reads one number per agent instead of
// following the agent record to its health (three dependent loads, a cache miss apiece at 100,000
// agents). Pure.

import type { BooleanFilterKey } from '../filter/filterTerm.ts';
import type { AgentState } from './agentState.ts';

const healthKnown = 1;
const healthy = 2;
const connected = 4;
const viaGateway = 8;

export function agentFlags(agent: AgentState): number {
  let flags = agent.connected ? connected : 0;
  if (agent.session.viaGateway) flags |= viaGateway;
  if (agent.health !== null) flags |= agent.health.healthy ? healthKnown | healthy : healthKnown;
  return flags;
}

/** The agents a term accepts are those whose flags, masked, equal `want`. */
export interface FlagTest {
  readonly mask: number;
  readonly want: number;
}

/** The flag test of `key=value`; `healthy=false` matches agents that reported unhealthy, not unknown. */
export function flagTest(key: BooleanFilterKey, value: boolean): FlagTest {
  switch (key) {
    case 'healthy':
      return { mask: healthKnown | healthy, want: value ? healthKnown | healthy : healthKnown };
    case 'connected':
      return { mask: connected, want: value ? connected : 0 };
    case 'via_gateway':
      return { mask: viaGateway, want: value ? viaGateway : 0 };
  }
}

/** Several flag tests as one (undefined when they contradict each other: nothing matches). */
export function combineFlagTests(tests: readonly FlagTest[]): FlagTest | undefined {
  let mask = 0;
  let want = 0;
  for (const t of tests) {
    if ((mask & t.mask & (want ^ t.want)) !== 0) return undefined;
    mask |= t.mask;
    want |= t.want;
  }
  return { mask, want };
}
