import { expect } from 'chai';
import { agentDetail, agentSummary } from '../../../src/web/views/agentView.ts';
import { toJson } from '../../../src/web/views/json.ts';
import { agent, health, testSession, uidOf } from '../../support/agentFixture.ts';

describe('agent views', () => {
  const reported = agent({
    n: 7,
    identifying: { 'service.name': 'collector', 'service.version': '1.2.3' },
    nonIdentifying: { 'host.name': 'node-1', 'opamp.managed_by': 'opentelemetry-opampsupervisor' },
    over: {
      sequenceNum: 42n,
      capabilities: 0x1n | 0x800n | (1n << 63n),
      health: health(false, {
        lastError: 'exporter down',
        status: 'degraded',
        startTimeNanos: 1_714_557_600_123_456_789n,
        statusTimeNanos: 0n,
        components: { exporter: health(false, { lastError: 'timeout', components: { otlp: health(true) } }) },
      }),
      effectiveConfig: { 'collector.yaml': { body: 'receivers: {}', contentType: 'text/yaml' } },
      packages: {
        packages: {
          b: {
            name: 'b',
            agentHasVersion: '1',
            agentHasHash: 'aa',
            serverOfferedVersion: '',
            serverOfferedHash: '',
            status: 'installed',
            errorMessage: '',
            downloadPercent: null,
            downloadBytesPerSecond: null,
          },
        },
        serverProvidedAllPackagesHash: 'ff',
        errorMessage: '',
      },
      missingAttributes: ['deployment.environment'],
      complianceUpdatedAt: Date.UTC(2026, 0, 1, 0, 1),
      session: { ...testSession, transport: 'http', viaGateway: true, tlsSubject: 'CN=agent' },
    },
  });

  it('summarises an agent with every SPEC field and no config or packages', () => {
    const s = agentSummary(reported);
    expect(s).to.include({
      instance_uid: uidOf(7),
      display_name: 'collector',
      host_name: 'node-1',
      version: '1.2.3',
      healthy: false,
      health_error: 'exporter down',
      health_status: 'degraded',
      health_start_time: '2024-05-01T10:00:00.123456789Z',
      health_status_time: null,
      health_reported: true,
      description_reported: true,
      connected: true,
      first_seen: '2026-01-01T00:00:00.000Z',
      last_seen: '2026-01-01T00:05:00.000Z',
      compliance_updated_at: '2026-01-01T00:01:00.000Z',
      supervisor_managed: true,
    });
    expect(s.connection).to.deep.equal({ transport: 'http', via_gateway: true, remote_addr: '127.0.0.1:5000', tls_subject: 'CN=agent' });
    expect(s.capability_flags).to.include({ reports_status: true, reports_health: true, accepts_remote_config: false });
    expect(s.missing_attributes).to.deep.equal(['deployment.environment']);
    expect(s).not.to.have.any.keys('effective_config', 'packages');
  });

  it('keeps capabilities and sequence_num exact in JSON', () => {
    const json = toJson(agentSummary(reported));
    expect(json).to.contain('"capabilities":9223372036854777857');
    expect(json).to.contain('"sequence_num":42');
  });

  it('details effective config, packages and the nested component health', () => {
    const d = agentDetail(reported);
    expect(d.effective_config).to.deep.equal({ 'collector.yaml': 'receivers: {}' });
    expect(d.packages).to.have.length(1);
    expect(d.packages[0]).to.include({ name: 'b', status: 'installed', agent_has_version: '1' });
    expect(d.packages_hash).to.equal('ff');
    expect(d.health?.components.exporter?.last_error).to.equal('timeout');
    expect(d.health?.components.exporter?.components.otlp?.healthy).to.equal(true);
  });

  it('renders an agent that reported nothing with nulls, empty maps and empty arrays', () => {
    const bare = agent({ n: 9, undescribed: true });
    const d = agentDetail(bare);
    expect(d).to.include({
      display_name: uidOf(9),
      host_name: '',
      version: '',
      healthy: false,
      health_reported: false,
      description_reported: false,
      health_start_time: null,
      health_status_time: null,
      compliance_updated_at: null,
      supervisor_managed: false,
      health: null,
    });
    expect(d.identifying_attributes).to.deep.equal({});
    expect(d.non_identifying_attributes).to.deep.equal({});
    expect(d.effective_config).to.deep.equal({});
    expect(d.packages).to.deep.equal([]);
    expect(d.missing_attributes).to.deep.equal([]);
    expect(d.reserved_attribute_conflicts).to.deep.equal([]);
    expect(JSON.parse(toJson(d))).to.not.have.any.keys('undefined');
  });

  it('falls back to host.name for the display name', () => {
    expect(agentSummary(agent({ nonIdentifying: { 'host.name': 'h' } })).display_name).to.equal('h');
  });
});
