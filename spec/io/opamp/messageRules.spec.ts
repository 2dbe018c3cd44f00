import { expect } from 'chai';
import { createConnection, createConnectionIds } from '../../../src/io/opamp/connection.ts';
import { brokenRule } from '../../../src/io/opamp/messageRules.ts';
import type { AgentMessage } from '../../../src/projections/agent/agentMessage.ts';
import { defaultReportLimits } from '../../../src/projections/agent/reportLimits.ts';
import { parseSelector, type Selector } from '../../../src/projections/filter/selector.ts';
import { agent, messageOf, uidOf } from '../../support/agentFixture.ts';

const ids = createConnectionIds();
const prod = (parseSelector('env=prod') as { ok: true; value: Selector }).value;
const scoped = createConnection('ws', '127.0.0.1:1', null, ids(), {
  credential: { kind: 'token', name: 'prod' },
  selector: prod,
  url: 'ws://opamp/v1/opamp',
});
const message = (attrs: Record<string, string>): AgentMessage =>
  messageOf(uidOf(1), { description: { identifying: attrs, nonIdentifying: {} } });
const rules = { reportLimits: { ...defaultReportLimits, attribute_count: 2 }, maxAgents: 10 };

describe('the rules a message may not break', () => {
  it('reports the claim refused first, with its text', () => {
    expect(
      brokenRule(rules, scoped, message({ env: 'dev' }), 'one_agent_per_connection', undefined, 0),
    ).to.deep.equal({
      reason: 'one_agent_per_connection',
      text: 'a connection that is not an accepted gateway carries one agent',
    });
  });

  it("then the token's selector, then the report limits, then fleet.max_agents for a new agent", () => {
    expect(brokenRule(rules, scoped, message({ env: 'dev' }), 'new', undefined, 0)?.reason).to.equal(
      'selector',
    );
    const many = message({ env: 'prod', a: '1', b: '2' });
    expect(brokenRule(rules, scoped, many, 'new', undefined, 0)?.reason).to.equal('attribute_count');
    expect(brokenRule(rules, scoped, message({ env: 'prod' }), 'new', undefined, 10)?.reason).to.equal(
      'max_agents',
    );
  });

  it('lets an agent already registered through a full fleet', () => {
    expect(brokenRule(rules, scoped, message({ env: 'prod' }), 'held', agent(), 10)).to.equal(undefined);
  });

  it('checks again after the store answered only what may have changed meanwhile', () => {
    const dev = message({ env: 'dev' });
    expect(brokenRule(rules, scoped, dev, 'new', undefined, 0, true)).to.equal(undefined);
    expect(brokenRule(rules, scoped, dev, 'uid_bound_elsewhere', undefined, 0, true)?.reason).to.equal(
      'uid_bound_elsewhere',
    );
    expect(brokenRule(rules, scoped, dev, 'new', undefined, 10, true)?.reason).to.equal('max_agents');
  });
});
