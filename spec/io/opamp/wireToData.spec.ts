import { expect } from 'chai';
import Long from 'long';
import { decodeAgentToServerWire, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';
import type { WireComponentHealth } from '../../../src/io/opamp/wireTypes.ts';
import { toAttributes, toHealth, toPackageStatuses } from '../../../src/io/opamp/wireToData.ts';

/** Encodes, then decodes with protobufjs: the wire shape translation starts from. */
function roundTrip(fields: Record<string, unknown>) {
  return decodeAgentToServerWire(encodeAgentToServer(fields));
}

describe('decoded protobuf to event data', () => {
  it('renders every AnyValue kind as plain text, never protobuf debug text', () => {
    const msg = roundTrip({
      agentDescription: {
        identifyingAttributes: [
          { key: 's', value: { stringValue: 'otelcol' } },
          { key: 'i', value: { intValue: 42 } },
          { key: 'big', value: { intValue: Long.fromString('-9223372036854775808') } },
          { key: 'b', value: { boolValue: true } },
          { key: 'd', value: { doubleValue: 1.5 } },
          {
            key: 'arr',
            value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }, { boolValue: false }] } },
          },
          { key: 'map', value: { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'v' } }] } } },
          { key: 'bytes', value: { bytesValue: Buffer.from('hi') } },
          { key: 'null', value: {} },
          { key: 'absent' },
        ],
      },
    });
    expect(toAttributes(msg.agentDescription!.identifyingAttributes)).to.deep.equal({
      s: 'otelcol',
      i: '42',
      big: '-9223372036854775808',
      b: 'true',
      d: '1.5',
      arr: '["a",1,false]',
      map: '{"k":"v"}',
      bytes: 'aGk=',
      null: '',
      absent: '',
    });
  });

  it('keeps health times exact as 64-bit nanoseconds and nests component health', () => {
    const nanos = Long.fromString('1732262400123456789', true);
    const health: WireComponentHealth = {
      healthy: true,
      startTimeUnixNano: nanos,
      lastError: '',
      status: 'StatusOK',
      statusTimeUnixNano: nanos,
      componentHealthMap: {
        'pipeline:traces': {
          healthy: false,
          startTimeUnixNano: 0,
          lastError: 'exporter down',
          status: '',
          statusTimeUnixNano: 0,
          componentHealthMap: {},
        },
      },
    };
    // protobufjs's shape (Long for fixed64) through toHealth, and the fast decoder's own reading.
    for (const read of [toHealth(health), createDecoder().decode(encodeAgentToServer({ health })).health!]) {
      expect(read.startTimeNanos).to.equal(1732262400123456789n);
      expect(read.components['pipeline:traces']).to.include({ healthy: false, lastError: 'exporter down' });
    }
  });

  it('cuts hostile nesting at a fixed depth instead of recursing without end', () => {
    let value: Record<string, unknown> = { stringValue: 'leaf' };
    for (let i = 0; i < 40; i++) value = { arrayValue: { values: [value] } };
    const msg = roundTrip({ agentDescription: { identifyingAttributes: [{ key: 'deep', value }] } });
    const text = toAttributes(msg.agentDescription!.identifyingAttributes).deep!;
    expect(text).to.match(/^\[\[\[/);
    expect(text).to.not.include('leaf');
  });

  it('turns package statuses into names, versions, hex hashes and states', () => {
    const msg = roundTrip({
      packageStatuses: {
        packages: {
          otelcol: {
            name: 'otelcol',
            agentHasVersion: '0.110.0',
            agentHasHash: Buffer.from([0xab, 0x01]),
            status: 3,
            errorMessage: 'bad',
          },
        },
        serverProvidedAllPackagesHash: Buffer.from([0xff]),
      },
    });
    const p = toPackageStatuses(msg.packageStatuses!);
    expect(p.serverProvidedAllPackagesHash).to.equal('ff');
    expect(p.packages.otelcol).to.include({
      agentHasVersion: '0.110.0',
      agentHasHash: 'ab01',
      status: 'install_failed',
      errorMessage: 'bad',
    });
  });
});
