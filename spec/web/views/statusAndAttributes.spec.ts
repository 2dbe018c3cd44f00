import { expect } from 'chai';
import { fleetCounts } from '../../../src/projections/registry/fleetCounts.ts';
import { attributeKeys, attributeValues } from '../../../src/web/views/attributesView.ts';
import { statusView } from '../../../src/web/views/statusView.ts';
import { agent, health } from '../../support/agentFixture.ts';

describe('status view', () => {
  const open = { tokens: false, client_certificates: false, agent_certificates: false };
  it('has the SPEC fields and how agents authenticate, with uptime from the injected clock', () => {
    const build = { version: '1.0.0', commit: 'abc', go_version: 'v24.0.0' };
    const startedAt = Date.UTC(2026, 0, 1);
    const fleet = fleetCounts([agent({ over: { health: health(true) } })]);
    const view = statusView(build, startedAt, startedAt + 90_999, fleet, open);
    expect(view).to.deep.equal({
      version: '1.0.0',
      commit: 'abc',
      go_version: 'v24.0.0',
      started_at: '2026-01-01T00:00:00.000Z',
      uptime_seconds: 90,
      fleet: { total: 1, connected: 1, disconnected: 0, healthy: 1, unhealthy: 0, health_unknown: 0, awaiting_full_state: 0 },
      agent_authentication: { required: false, tokens: false, client_certificates: false, agent_certificates: false },
    });
  });

  it('says agents must authenticate when tokens or client certificates are asked for', () => {
    const build = { version: '1.0.0', commit: 'abc', go_version: 'v24.0.0' };
    const auth = (tokens: boolean, client_certificates: boolean, agent_certificates = false) =>
      statusView(build, 0, 0, fleetCounts([]), { tokens, client_certificates, agent_certificates })
        .agent_authentication.required;
    expect(auth(true, false)).to.equal(true);
    expect(auth(false, true)).to.equal(true);
    expect(auth(false, false, true), 'agent certificates are accepted, not required').to.equal(false);
    expect(auth(true, false, true)).to.equal(true);
  });
});

describe('attribute listings', () => {
  const agents = [
    agent({ n: 1, identifying: { 'service.name': 'b', env: 'prod' }, nonIdentifying: { 'Host.Name': 'x' } }),
    agent({ n: 2, identifying: { 'service.name': 'a' }, nonIdentifying: { env: 'Prod-EU' } }),
    agent({ n: 3, undescribed: true }),
  ];
  it('lists distinct keys of both maps, sorted', () => {
    expect(attributeKeys(agents)).to.deep.equal(['Host.Name', 'env', 'service.name']);
  });
  it('filters keys by a case-insensitive substring', () => {
    expect(attributeKeys(agents, 'NAME')).to.deep.equal(['Host.Name', 'service.name']);
  });
  it('lists distinct values of one key across both maps, sorted and filtered', () => {
    expect(attributeValues(agents, 'env')).to.deep.equal(['Prod-EU', 'prod']);
    expect(attributeValues(agents, 'env', 'eu')).to.deep.equal(['Prod-EU']);
    expect(attributeValues(agents, 'missing')).to.deep.equal([]);
  });
});
