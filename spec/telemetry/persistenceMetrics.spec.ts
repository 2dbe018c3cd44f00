import { expect } from 'chai';
import { Registry } from 'prom-client';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import {
  registerPersistenceMetrics,
  registerStoreFallbacks,
} from '../../src/telemetry/persistenceMetrics.ts';

const parse = async (r: Registry) =>
  new Map(parsePrometheusTextFormat(await r.metrics()).map((f) => [f.name, f]));

describe('persistence metrics', () => {
  it('registers SPEC’s persistence metrics on the fleet registry and the fallback counter on the server registry', async () => {
    const server = new Registry();
    const fleet = new Registry();
    let acquired = 2;
    const m = registerPersistenceMetrics({
      fleet,
      writeTimeoutSeconds: { save_agent: 5, soft_delete_agent: 5, save_session: 5 },
      pool: () => ({ acquired, max: 10 }),
    });
    m.observeWrite('save_agent', 0.02);
    m.observeWrite('save_session', 0.01);
    m.purged(3);
    m.purged(0);
    registerStoreFallbacks(server)('api');
    acquired = 4;

    const f = await parse(fleet);
    expect([...f.keys()].sort()).to.deep.equal([
      'svc_agents_purged_total',
      'svc_persistence_pool_acquired_conns',
      'svc_persistence_pool_max_conns',
      'svc_persistence_write_duration_seconds',
      'svc_persistence_write_timeout_seconds',
    ]);
    expect(f.get('svc_persistence_write_duration_seconds')?.type).to.equal('HISTOGRAM');
    expect(f.get('svc_agents_purged_total')?.metrics[0]?.value).to.equal('3');
    expect(f.get('svc_persistence_pool_acquired_conns')?.metrics[0]?.value).to.equal('4');
    expect(f.get('svc_persistence_pool_max_conns')?.metrics[0]?.value).to.equal('10');
    expect(f.get('svc_persistence_write_timeout_seconds')?.metrics.map((s) => s.labels?.op)).to.have.members([
      'save_agent',
      'soft_delete_agent',
      'save_session',
    ]);

    const s = await parse(server);
    expect([...s.keys()]).to.deep.equal(['svc_list_agents_store_fallback_errors_total']);
    const fallback = s.get('svc_list_agents_store_fallback_errors_total')!;
    expect(fallback.type).to.equal('COUNTER');
    expect(Object.fromEntries(fallback.metrics.map((x) => [x.labels?.surface, x.value]))).to.deep.equal({
      api: '1',
      ui: '0',
    });
  });
});
