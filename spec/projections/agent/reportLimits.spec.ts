import { expect } from 'chai';
import type { Attributes, ComponentHealth, EffectiveConfig } from '../../../src/events/agentData.ts';
import {
  checkDescription,
  checkEffectiveConfig,
  checkHealth,
  checkReport,
  defaultReportLimits as limits,
} from '../../../src/projections/agent/reportLimits.ts';

const health = (components: Record<string, ComponentHealth> = {}, status = 'ok'): ComponentHealth => ({
  healthy: true,
  startTimeNanos: 0n,
  lastError: '',
  status,
  statusTimeNanos: 0n,
  components,
});

/** `n` attributes whose values count how often they are read: how far a check walked. */
function countedAttributes(n: number): { attributes: Attributes; reads: () => number } {
  let reads = 0;
  const attributes: Record<string, string> = {};
  for (let i = 0; i < n; i++)
    Object.defineProperty(attributes, `k${i}`, {
      enumerable: true,
      get: () => {
        reads++;
        return 'v';
      },
    });
  return { attributes, reads: () => reads };
}

/** A chain of `depth` components, each with one child. */
function chain(depth: number): ComponentHealth {
  let node = health();
  for (let i = 0; i < depth; i++) node = health({ [`c${i}`]: node });
  return node;
}

describe('report limits', () => {
  it('accepts what a real Collector reports', () => {
    const collector = {
      description: {
        identifying: {
          'service.name': 'otelcol-contrib',
          'service.instance.id': 'a3c1',
          'service.version': '0.140.0',
        },
        nonIdentifying: { 'host.name': 'node-1', 'os.type': 'linux', 'host.arch': 'amd64' },
      },
      effectiveConfig: { '': { body: 'receivers:\n  otlp: {}\n'.repeat(500), contentType: 'text/yaml' } },
      health: health({ 'pipeline:traces': health({ 'receiver:otlp': health(), 'exporter:otlp': health() }) }),
    };
    expect(checkReport(collector, limits)).to.equal(undefined);
  });

  it('refuses 200,000 attributes after reading one more than the limit', () => {
    const { attributes, reads } = countedAttributes(200_000);
    const v = checkDescription({ identifying: {}, nonIdentifying: attributes }, limits);
    expect(v).to.deep.include({ limit: 'attribute_count', max: 1024, found: 1025 });
    expect(v?.reason).to.equal('attribute count exceeds agents.limits.attribute_count (1025 > 1024)');
    expect(reads()).to.equal(1024);
  });

  it('reads each of 200,000 attributes once when the limit allows them all', () => {
    const { attributes, reads } = countedAttributes(200_000);
    const roomy = { ...limits, attribute_count: 200_000 };
    expect(checkDescription({ identifying: attributes, nonIdentifying: {} }, roomy)).to.equal(undefined);
    expect(reads()).to.equal(200_000);
  });

  it('counts identifying and non-identifying attributes together', () => {
    const half = (prefix: string) =>
      Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`${prefix}${i}`, 'v']));
    const v = checkDescription({ identifying: half('i'), nonIdentifying: half('n') }, limits);
    expect(v?.limit).to.equal('attribute_count');
  });

  it('refuses a 12 MiB service.name, naming the attribute', () => {
    const huge = 'x'.repeat(12 * 1024 * 1024);
    const v = checkDescription({ identifying: { 'service.name': huge }, nonIdentifying: {} }, limits);
    expect(v).to.deep.include({ limit: 'attribute_value_length', max: 16_384, found: huge.length });
    expect(v?.reason).to.contain('"service.name"');
  });

  it('refuses a key longer than the limit, at the limit accepts it', () => {
    const at = 'k'.repeat(1024);
    expect(checkDescription({ identifying: { [at]: 'v' }, nonIdentifying: {} }, limits)).to.equal(undefined);
    const v = checkDescription({ identifying: { [`${at}k`]: 'v' }, nonIdentifying: {} }, limits);
    expect(v).to.deep.include({ limit: 'attribute_key_length', found: 1025 });
  });

  it('refuses more effective-config files than the limit, and stops walking there', () => {
    const config: Record<string, { body: string; contentType: string }> = {};
    for (let i = 0; i < 100_000; i++) config[`f${i}`] = { body: '', contentType: '' };
    expect(checkEffectiveConfig(config, limits)).to.deep.include({
      limit: 'effective_config_files',
      found: 1025,
    });
  });

  it('refuses an effective config over the size limit, the file names counted', () => {
    const body = 'x'.repeat(limits.effective_config_size - 1);
    const fits: EffectiveConfig = { a: { body, contentType: 'text/yaml' } };
    expect(checkEffectiveConfig(fits, limits)).to.equal(undefined);
    const over: EffectiveConfig = { ab: { body, contentType: 'text/yaml' } };
    expect(checkEffectiveConfig(over, limits)).to.deep.include({
      limit: 'effective_config_size',
      found: limits.effective_config_size + 1,
    });
  });

  it('refuses a health tree deeper than the limit, without recursion even at 100,000 levels', () => {
    expect(checkHealth(chain(16), limits)).to.equal(undefined);
    expect(checkHealth(chain(17), limits)).to.deep.include({ limit: 'health_depth', found: 17 });
    expect(
      checkHealth(chain(100_000), { ...limits, health_depth: 200_000, health_components: 200_000 }),
    ).to.equal(undefined);
  });

  it('refuses more health components than the limit, counted over every level', () => {
    const wide = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, health()]));
    const tree = health({ a: health(wide(5000)), b: health(wide(5000)) });
    expect(checkHealth(tree, limits)).to.deep.include({ limit: 'health_components', found: 10_001 });
    expect(checkHealth(health(wide(9999)), limits)).to.equal(undefined);
  });

  it('refuses a 12 MiB health status or component name', () => {
    const huge = 'x'.repeat(12 * 1024 * 1024);
    expect(checkHealth(health({}, huge), limits)).to.deep.include({ limit: 'health_text_length' });
    expect(checkHealth(health({ [huge]: health() }), limits)).to.deep.include({
      limit: 'health_text_length',
    });
  });

  it('answers the first violation of a report: description, then effective config, then health', () => {
    const report = {
      description: { identifying: { k: 'x'.repeat(20_000) }, nonIdentifying: {} },
      health: chain(40),
    };
    expect(checkReport(report, limits)?.limit).to.equal('attribute_value_length');
    expect(checkReport({ health: chain(40) }, limits)?.limit).to.equal('health_depth');
  });

  it("refuses a 12 MiB error_message in a config's or connection settings' status, at the limit accepts it", () => {
    const status = (errorMessage: string) => ({ hash: 'ab', status: 'failed' as const, errorMessage });
    const huge = status('x'.repeat(12 * 1024 * 1024));
    expect(checkReport({ remoteConfigStatus: huge }, limits)).to.deep.include({
      limit: 'status_error_length',
      reason: `error_message of remote_config_status exceeds agents.limits.status_error_length (${12 * 1024 * 1024} > 16384)`,
    });
    expect(checkReport({ connectionSettingsStatus: huge }, limits)?.limit).to.equal('status_error_length');
    const atLimit = status('x'.repeat(limits.status_error_length));
    expect(checkReport({ remoteConfigStatus: atLimit, connectionSettingsStatus: atLimit }, limits)).to.equal(
      undefined,
    );
  });
});
