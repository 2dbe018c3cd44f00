import { expect } from 'chai';
import { parseSimulateArgs, UsageError } from '../../../tools/simulate/simulateCli.ts';

describe('simulate command line', () => {
  it('reads every option into fleet settings', () => {
    const { fleet, durationMs, json } = parseSimulateArgs([
      '--url',
      'http://127.0.0.1:4999',
      '--agents',
      '250',
      '--transport',
      'mix',
      '--gateway',
      '--heartbeat',
      '15s',
      '--flap-rate',
      '0.05',
      '--config-size',
      '2KiB',
      '--attributes',
      '12',
      '--churn',
      '1.5',
      '--ramp',
      '0',
      '--duration',
      '1m',
      '--sources',
      '3',
      '--apply-ms',
      '200ms',
      '--config-fail-rate',
      '0.1',
      '--config-rollback-rate',
      '0.2',
      '--json',
    ]);
    expect(fleet).to.deep.equal({
      url: 'http://127.0.0.1:4999',
      agents: 250,
      transport: 'mix',
      gateways: 1,
      heartbeatMs: 15_000,
      flapRate: 0.05,
      configBytes: 2048,
      applyMs: 200,
      configFailRate: 0.1,
      configRollbackRate: 0.2,
      attributes: 12,
      churnPerSecond: 1.5,
      rampPerSecond: 0,
      localAddresses: ['127.0.0.1', '127.0.0.2', '127.0.0.3'],
    });
    expect(durationMs).to.equal(60_000);
    expect(json).to.equal(true);
  });

  it('rejects bad values with a usage error naming the option', () => {
    expect(() => parseSimulateArgs(['--transport', 'smoke'])).to.throw(UsageError, /--transport smoke/);
    expect(() => parseSimulateArgs(['--agents', '0'])).to.throw(UsageError, /--agents/);
    expect(() => parseSimulateArgs(['--flap-rate', '2'])).to.throw(UsageError, /probability/);
    expect(() => parseSimulateArgs(['--config-rollback-rate', '1.5'])).to.throw(
      UsageError,
      /--config-rollback-rate/,
    );
    expect(() => parseSimulateArgs(['--heartbeat', 'soon'])).to.throw(UsageError, /--heartbeat soon/);
  });
});
