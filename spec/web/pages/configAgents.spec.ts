import { expect } from 'chai';
import type { AgentState } from '../../../src/projections/agent/agentState.ts';
import { composeDesired, type DesiredConfig } from '../../../src/projections/remoteConfig/desiredConfig.ts';
import { configAgentRows } from '../../../src/web/pages/configAgents.ts';
import { agent } from '../../support/agentFixture.ts';

const base = composeDesired([{ name: 'base', revision: 3, body: 'a: 1\n', contentType: 'text/yaml' }])!;
const other = composeDesired([{ name: 'other', revision: 1, body: 'b: 1\n', contentType: 'text/yaml' }])!;

function configAgent(
  n: number,
  name: string,
  status: 'applied' | 'failed' | null,
  accepts = true,
): AgentState {
  return agent({
    n,
    identifying: { 'service.name': name },
    over: {
      capabilities: accepts ? 3n : 1n,
      remoteConfigStatus:
        status === null ? null : { hash: base.hash, status, errorMessage: status === 'failed' ? 'boom' : '' },
    },
  });
}

describe('configAgentRows', () => {
  const agents = [
    configAgent(1, 'zulu', 'applied'),
    configAgent(2, 'alpha', 'applied'),
    configAgent(3, 'mike', null),
    configAgent(4, 'kilo', 'failed'),
    configAgent(5, 'lima', null, false),
    configAgent(6, 'other', 'applied'),
  ];
  const desiredFor = (a: AgentState): DesiredConfig | undefined => (a.uid.endsWith('6') ? other : base);

  it('keeps the agents the config targets, failed, pending and unsupported before applied, then by name', () => {
    const rows = configAgentRows('base', agents, desiredFor, undefined);
    expect(rows.map((r) => [r.name, r.state])).to.deep.equal([
      ['kilo', 'failed'],
      ['mike', 'pending'],
      ['lima', 'unsupported'],
      ['alpha', 'applied'],
      ['zulu', 'applied'],
    ]);
    expect(rows[0]).to.include({
      revision: 3,
      desiredHash: base.hash,
      reportedHash: base.hash,
      errorMessage: 'boom',
    });
  });

  it('keeps only the agents in one state when asked', () => {
    expect(configAgentRows('base', agents, desiredFor, 'applied').map((r) => r.name)).to.deep.equal([
      'alpha',
      'zulu',
    ]);
  });
});
