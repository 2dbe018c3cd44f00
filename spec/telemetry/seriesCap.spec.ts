import { expect } from 'chai';
import type { App } from '../../src/app.ts';
import { agentMessage, newUid, postHttp } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';
import { scrape } from './scrape.ts';

describe('per-agent series cap (metrics.per_agent_series_limit)', () => {
  const limit = 3;
  let app: App;
  const uids: string[] = [];
  before(async () => {
    app = await startApp({ config: { metrics: { per_agent_series_limit: limit } } });
  });
  after(() => app.stop());
  const fleet = () => scrape(`${app.urls.telemetry}/metrics/fleet`);
  const register = async () => {
    const uid = newUid();
    uids.push(uid);
    const r = await postHttp(app.urls.opamp, agentMessage(uid, { health: { healthy: true } }));
    expect(r.status).to.equal(200);
  };

  it('exports every per-agent series while the fleet size is at the limit', async () => {
    for (let i = 0; i < limit; i++) await register();
    const m = await fleet();
    expect(m.value('svc_fleet_size')).to.equal(limit);
    expect(m.value('svc_agent_series_capped')).to.equal(0);
    expect(m.samples('svc_agent_health').map((s) => s.labels?.instance_uid)).to.have.members(uids);
    expect(
      m.samples('svc_agent_last_seen_timestamp_seconds').map((s) => s.labels?.instance_uid),
    ).to.have.members(uids);
  });

  it('omits every per-agent series, keeping the aggregates, at limit + 1', async () => {
    await register();
    const m = await fleet();
    expect(m.value('svc_fleet_size')).to.equal(limit + 1);
    expect(m.value('svc_agent_series_capped')).to.equal(1);
    expect(m.samples('svc_agent_health')).to.deep.equal([]);
    expect(m.samples('svc_agent_last_seen_timestamp_seconds')).to.deep.equal([]);
    expect(m.value('svc_agents_connected', { transport: 'http', via: 'direct' })).to.equal(limit + 1);
    expect(m.value('svc_agent_reports_total', { type: 'health' })).to.equal(limit + 1);
  });
});
