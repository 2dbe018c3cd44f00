import { expect } from 'chai';
import { sortAgents, type Sort } from '../../../src/web/pages/sortAgents.ts';
import { agentState, health, uidOf, type AgentSpec } from './agentFixture.ts';

const fleet = (...specs: AgentSpec[]) => specs.map(agentState);
const order = (specs: AgentSpec[], sort: Sort) =>
  sortAgents(fleet(...specs), sort).map((a) => Number(a.uid.slice(-12)));

describe('sortAgents', () => {
  it('puts agents that need attention first when sorting by status ascending', () => {
    const specs: AgentSpec[] = [
      { n: 1, health: health(true) },
      { n: 2, health: null },
      { n: 3, connected: false, health: health(true) },
      { n: 4, health: health(false) },
    ];
    expect(order(specs, { key: 'status', order: 'asc' })).to.deep.equal([4, 3, 2, 1]);
    expect(order(specs, { key: 'status', order: 'desc' })).to.deep.equal([1, 2, 3, 4]);
  });

  it('sorts names case-insensitively and versions numerically', () => {
    const specs: AgentSpec[] = [
      { n: 1, name: 'beta', version: '1.10.0' },
      { n: 2, name: 'Alpha', version: '1.9.2' },
      { n: 3, name: 'gamma', version: '1.2.0' },
    ];
    expect(order(specs, { key: 'name', order: 'asc' })).to.deep.equal([2, 1, 3]);
    expect(order(specs, { key: 'version', order: 'asc' })).to.deep.equal([3, 2, 1]);
    expect(order(specs, { key: 'version', order: 'desc' })).to.deep.equal([1, 2, 3]);
  });

  it('falls back to the instance uid for the display name of agents without a service or host name', () => {
    expect(order([{ n: 9 }, { n: 2, name: 'z' }], { key: 'name', order: 'asc' })).to.deep.equal([9, 2]);
  });

  it('sorts by route, transport and last seen', () => {
    const specs: AgentSpec[] = [
      { n: 1, viaGateway: true, transport: 'http', lastSeen: 30 },
      { n: 2, viaGateway: false, transport: 'ws', lastSeen: 10 },
      { n: 3, viaGateway: false, transport: 'http', lastSeen: 20 },
    ];
    expect(order(specs, { key: 'via', order: 'asc' })).to.deep.equal([2, 3, 1]);
    expect(order(specs, { key: 'transport', order: 'asc' })).to.deep.equal([1, 3, 2]);
    expect(order(specs, { key: 'last_seen', order: 'desc' })).to.deep.equal([1, 3, 2]);
  });

  it('breaks ties by ascending instance uid in both orders, so pages stay stable', () => {
    const specs: AgentSpec[] = [
      { n: 3, name: 'same' },
      { n: 1, name: 'same' },
      { n: 2, name: 'other' },
    ];
    expect(order(specs, { key: 'name', order: 'asc' })).to.deep.equal([2, 1, 3]);
    expect(order(specs, { key: 'name', order: 'desc' })).to.deep.equal([1, 3, 2]);
  });

  it('orders by instance uid in either direction', () => {
    const specs: AgentSpec[] = [{ n: 2 }, { n: 3 }, { n: 1 }];
    expect(order(specs, { key: 'instance', order: 'asc' })).to.deep.equal([1, 2, 3]);
    expect(order(specs, { key: 'instance', order: 'desc' })).to.deep.equal([3, 2, 1]);
    expect(uidOf(1) < uidOf(2)).to.equal(true);
  });
});
