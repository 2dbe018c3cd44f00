// Health trees reported alike are read into one shared tree (healthReader.ts): the fast reader hands
// out a node equal to the last one at its depth instead of a copy. Sharing must never change what is
// read: every report, however its nodes repeat or differ from the ones before, reads as protobufjs's
// decoding translated (fromWire) reads it.

import { expect } from 'chai';
import fc from 'fast-check';
import type { ComponentHealth } from '../../../src/events/agentData.ts';
import { readAgentToServer } from '../../../src/io/opamp/agentToServerReader.ts';
import { decodeAgentToServerWire, encodeAgentToServer } from '../../../src/io/opamp/codec.ts';
import { createReadTables } from '../../../src/io/opamp/protoReader.ts';
import { createSharedText } from '../../../src/io/opamp/sharedText.ts';
import { fromWire } from '../../../src/io/opamp/wireToData.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 300);

function reader() {
  const tables = createReadTables();
  const bodies = createSharedText({ maxChars: 1 << 20, maxTextChars: 1 << 16 });
  return (health: object): { fast: ComponentHealth | undefined; slow: ComponentHealth | undefined } => {
    const bytes = encodeAgentToServer({ instanceUid: new Uint8Array(16).fill(1), health });
    const fast = readAgentToServer(bytes, tables, bodies);
    expect(fast, 'read by the fast reader').not.to.equal(undefined);
    return { fast: fast!.health, slow: fromWire(decodeAgentToServerWire(bytes), bodies).health };
  };
}

const ok = { healthy: true, status: 'StatusOK', startTimeUnixNano: 7 };
const pipeline = (exporter: object) => ({
  ...ok,
  componentHealthMap: { 'receiver:otlp': ok, 'processor:batch': ok, 'exporter:otlphttp': exporter },
});
const collector = (exporter: object) => ({
  ...ok,
  componentHealthMap: { 'pipeline:traces': pipeline(exporter), 'pipeline:metrics': pipeline(exporter) },
});

describe('health trees reported alike', () => {
  it('are one shared tree, read as protobufjs reads each', () => {
    const read = reader();
    const first = read(collector(ok));
    const second = read(collector(ok));
    expect(first.fast).to.deep.equal(first.slow);
    expect(second.fast).to.deep.equal(second.slow);
    expect(second.fast).to.equal(first.fast);
    const traces = first.fast!.components['pipeline:traces']!;
    expect(first.fast!.components['pipeline:metrics']).to.equal(traces);
    expect(traces.components['processor:batch']).to.equal(traces.components['receiver:otlp']);
  });

  it('keep a node that differs its own, sharing the components that do not', () => {
    const read = reader();
    const healthy = read(collector(ok)).fast!;
    const failing = { healthy: false, status: 'StatusRecoverableError', lastError: 'refused' };
    const report = read(collector(failing));
    expect(report.fast).to.deep.equal(report.slow);
    expect(report.fast).not.to.equal(healthy);
    const receiver = report.fast!.components['pipeline:traces']!.components['receiver:otlp'];
    expect(receiver).to.equal(healthy.components['pipeline:traces']!.components['receiver:otlp']);
    // Fewer components than the node before, then the same again: each read as itself.
    const fewer = read({ ...ok, componentHealthMap: { 'pipeline:traces': pipeline(ok) } });
    expect(fewer.fast).to.deep.equal(fewer.slow);
    const again = read(collector(ok));
    expect(again.fast).to.deep.equal(again.slow);
  });

  it('read as protobufjs reads them whatever repeats, in any order and with any component missing', () => {
    // Few names and values, so that nodes repeat, partly repeat and differ from report to report.
    const { node } = fc.letrec<{ node: object }>((tie) => ({
      node: fc.record(
        {
          healthy: fc.boolean(),
          status: fc.constantFrom('', 'x', 'y'),
          lastError: fc.constantFrom('', 'e'),
          startTimeUnixNano: fc.constantFrom(0, 5, 7),
          componentHealthMap: fc.oneof(
            { depthSize: 'small' },
            fc.constant({}),
            fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }),
          ),
        },
        { requiredKeys: [] },
      ),
    }));
    const read = reader();
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 6 }), (healths) => {
        for (const health of healths) {
          const { fast, slow } = read(health);
          expect(fast).to.deep.equal(slow);
        }
      }),
      { numRuns: runs * 10 },
    );
  });
});
