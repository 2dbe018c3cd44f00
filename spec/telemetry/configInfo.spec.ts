import { expect } from 'chai';
import type { Config } from '../../src/io/config/schema.ts';
import { loadConfig } from '../../src/io/config/loadConfig.ts';
import { configInfoLabels } from '../../src/telemetry/serverMetrics.ts';

// configInfoLabels reads a validated Config; the TLS flags depend only on which paths are set, so the
// specs set them on a loaded config rather than making certificates.
const withOpampTls = (config: Config, tls: Partial<Config['opamp_tls']>): Config => ({
  ...config,
  opamp_tls: { ...config.opamp_tls, ...tls },
});

describe('svc_config_info labels', () => {
  it('describe the OpAMP listener’s TLS and mTLS and write durations as Go does', () => {
    const loaded = loadConfig({
      overrides: {
        fleet: { heartbeat_interval: '2m', stale_missed_heartbeats: 5 },
        database: { password: 'hunter2' },
      },
    });
    const labels = configInfoLabels(
      withOpampTls(loaded, { cert_file: 'server.crt', key_file: 'server.key', client_ca_file: 'ca.crt' }),
    );
    expect(labels).to.deep.equal({
      log_level: 'info',
      log_format: 'text',
      tls_enabled: 'true',
      mtls_enabled: 'true',
      heartbeat_interval: '2m0s',
      stale_missed_heartbeats: '5',
      per_agent_series_limit: '1000',
    });
    expect(JSON.stringify(labels)).to.not.include('hunter2');
  });

  it('reports TLS without mTLS when no client CA is set, and neither by default', () => {
    const loaded = loadConfig({});
    expect(configInfoLabels(loaded)).to.include({ tls_enabled: 'false', mtls_enabled: 'false' });
    const tls = withOpampTls(loaded, { cert_file: 'server.crt', key_file: 'server.key' });
    expect(configInfoLabels(tls)).to.include({ tls_enabled: 'true', mtls_enabled: 'false' });
  });
});
