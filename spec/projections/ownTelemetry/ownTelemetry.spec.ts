// Which own-telemetry destinations an agent is offered (the own_telemetry configuration), and the
// offer's hash.

import { expect } from 'chai';
import {
  compileOwnTelemetry,
  type OwnTelemetryEntry,
} from '../../../src/projections/ownTelemetry/ownTelemetry.ts';
import { agent as agentOf } from '../../support/agentFixture.ts';

const Metrics = 0x40n;
const Logs = 0x80n;
const Traces = 0x20n;
const agent = (capabilities: bigint, identifying: Record<string, string> = { env: 'prod' }) =>
  agentOf({ identifying, over: { capabilities } });

const entries: OwnTelemetryEntry[] = [
  { selector: 'env=prod', metrics: { endpoint: 'https://prod/v1/metrics', headers: { b: '2', a: '1' } } },
  {
    selector: 'env=~".+"',
    metrics: { endpoint: 'https://any/v1/metrics' },
    logs: { endpoint: 'https://any/v1/logs' },
  },
];

describe('own telemetry offers', () => {
  it('takes, per signal, the first entry that names it and matches the agent', () => {
    const offerFor = compileOwnTelemetry(entries)!;
    const offer = offerFor(agent(Metrics | Logs))!;
    expect(offer.signals).to.deep.equal(['metrics', 'logs']);
    expect(offer.metrics).to.deep.equal({
      endpoint: 'https://prod/v1/metrics',
      headers: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ],
    });
    expect(offer.logs?.endpoint).to.equal('https://any/v1/logs');
    expect(offerFor(agent(Metrics, { env: 'dev' }))!.metrics?.endpoint).to.equal('https://any/v1/metrics');
  });

  it('offers only the signals the agent declares it reports, and nothing to an undescribed agent', () => {
    const offerFor = compileOwnTelemetry(entries)!;
    expect(offerFor(agent(Logs))!.signals).to.deep.equal(['logs']);
    expect(offerFor(agent(Traces))).to.equal(undefined);
    expect(offerFor(agent(0n))).to.equal(undefined);
    expect(offerFor(agentOf({ undescribed: true, over: { capabilities: Metrics } }))).to.equal(undefined);
    expect(compileOwnTelemetry([])).to.equal(undefined);
  });

  it('hashes exactly what is offered: the same settings the same hash, any change another', () => {
    const offerFor = compileOwnTelemetry(entries)!;
    const both = offerFor(agent(Metrics | Logs))!;
    expect(offerFor(agent(Metrics | Logs))).to.equal(both);
    expect(both.hash).to.match(/^[0-9a-f]{64}$/);
    const reordered = compileOwnTelemetry([
      { ...entries[0]!, metrics: { endpoint: 'https://prod/v1/metrics', headers: { a: '1', b: '2' } } },
      entries[1]!,
    ])!;
    expect(reordered(agent(Metrics | Logs))!.hash, 'header order is not a change').to.equal(both.hash);
    const onlyMetrics = offerFor(agent(Metrics))!;
    expect(onlyMetrics.hash).to.not.equal(both.hash);
    const otherHeader = compileOwnTelemetry([
      { ...entries[0]!, metrics: { endpoint: 'https://prod/v1/metrics', headers: { a: '1', b: '3' } } },
    ])!;
    expect(otherHeader(agent(Metrics))!.hash).to.not.equal(onlyMetrics.hash);
  });
});
