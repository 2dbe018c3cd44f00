import { expect } from 'chai';
import { agentFlags, flagTest } from '../../../src/projections/agent/agentFlags.ts';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { parseFleetQuery } from '../../../src/projections/filter/fleetFilter.ts';
import { agent, health } from '../../support/agentFixture.ts';

describe('agent flags: the boolean filter terms as bits', () => {
  const sessionOf = (a: AgentState, viaGateway: boolean) => ({ ...a.session, viaGateway });
  const agents: AgentState[] = [];
  for (const connected of [true, false])
    for (const h of [null, health(true), health(false)])
      for (const viaGateway of [true, false]) {
        const a = agent();
        agents.push({ ...a, connected, health: h, session: sessionOf(a, viaGateway) });
      }

  it('accepts exactly the agents the record predicates accept, for every term', () => {
    for (const key of ['healthy', 'connected', 'via_gateway'] as const)
      for (const value of [true, false]) {
        const parsed = parseFleetQuery(new URLSearchParams({ [key]: String(value) }));
        if (!parsed.ok) throw new Error(parsed.error);
        const { mask, want } = flagTest(key, value);
        for (const a of agents)
          expect((agentFlags(a) & mask) === want, `${key}=${value}`).to.equal(parsed.filter.matches(a));
      }
  });

  it('combines the terms of one filter into one test', () => {
    const parsed = parseFleetQuery(new URLSearchParams({ healthy: 'false', via_gateway: 'true' }));
    if (!parsed.ok) throw new Error(parsed.error);
    const { mask, want } = parsed.filter.flags;
    expect(parsed.filter.recordTests).to.have.length(0);
    for (const a of agents) expect((agentFlags(a) & mask) === want).to.equal(parsed.filter.matches(a));
  });
});
