// One measurement of the decoder scenario (scenarios/10-decoder.ts), in its own process so nothing
// else of the runner shares its heap: `node --expose-gc decodeRun.ts STATIC_MODULE AGENTS ROUNDS`.
// Decodes the realistic status mix (support/statusMix.ts) with each way under comparison, prints one
// JSON line: CPU nanoseconds per message (best of 7 passes, the ways taking turns), and the heap that decoded first
// reports of every agent keep alive (what a registry holding them would hold).

import { pathToFileURL } from 'node:url';
import { decodeAgentToServerWire } from '../../../src/io/opamp/codec.ts';
import { createDecoder } from '../../../src/io/opamp/decoder.ts';
import { createSharedText } from '../../../src/io/opamp/sharedText.ts';
import { fromWire } from '../../../src/io/opamp/wireToData.ts';
import type { WireAgentToServer } from '../../../src/io/opamp/wireTypes.ts';
import { createLoadAgent } from '../support/statusMix.ts';

const [staticModule = '', agentsArg = '2000', roundsArg = '8'] = process.argv.slice(2);
const agents = Number(agentsArg);
const rounds = Number(roundsArg);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

interface StaticAgentToServer {
  decode(bytes: Uint8Array): unknown;
}
const generated = (await import(pathToFileURL(staticModule).href)) as {
  opamp: { proto: { v1: { AgentToServer: StaticAgentToServer } } };
};
const StaticAgentToServer = generated.opamp.proto.v1.AgentToServer;

type Decode = (bytes: Uint8Array) => unknown;

/** The ways compared; each gets its own decoder state, as one service would have. */
function ways(): Record<string, Decode> {
  const decoder = createDecoder();
  const staticBodies = createSharedText({ maxChars: 8 << 20, maxTextChars: 1 << 20 });
  const reflectionBodies = createSharedText({ maxChars: 8 << 20, maxTextChars: 1 << 20 });
  return {
    'hand-written (the service)': (bytes) => decoder.decode(bytes),
    'pbjs static, wire objects only': (bytes) => StaticAgentToServer.decode(bytes),
    'pbjs static + translation': (bytes) =>
      fromWire(StaticAgentToServer.decode(bytes) as WireAgentToServer, staticBodies),
    'protobufjs reflection + translation': (bytes) =>
      fromWire(decodeAgentToServerWire(bytes), reflectionBodies),
  };
}

const fleet = Array.from({ length: agents }, (_, i) => createLoadAgent(i, 'realistic'));
const firsts = fleet.map((agent) => agent.first());
/** Rounds of the mix: every agent alternates a heartbeat and the next change (health, config, …). */
const stream: Buffer[] = [];
for (let r = 0; r < rounds; r++)
  for (const agent of fleet) stream.push(r % 2 === 0 ? agent.heartbeat() : agent.next());
const bytesPerMessage = stream.reduce((sum, b) => sum + b.length, 0) / stream.length;

/** CPU ns per message of one pass over the stream. */
function pass(decode: Decode): number {
  const start = process.cpuUsage();
  for (let i = 0; i < stream.length; i++) decode(stream[i]!);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / stream.length;
}

function retainedBytesPerAgent(decode: Decode): number {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = firsts.map((bytes) => decode(bytes));
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== agents) throw new Error('lost a decoded message');
  return (after - before) / agents;
}

const compared = Object.entries(ways());
for (const [, decode] of compared) {
  for (const bytes of firsts) decode(bytes); // warm up: the first reports, then the mix once
  for (const bytes of stream) decode(bytes);
}
// Passes take turns, so a busy moment of the machine does not fall on one way only.
const best = compared.map(() => Infinity);
for (let p = 0; p < 7; p++) compared.forEach(([, decode], i) => (best[i] = Math.min(best[i]!, pass(decode))));
const results = compared.map(([name, decode], i) => ({
  name,
  nsPerMessage: best[i]!,
  retainedPerAgent: retainedBytesPerAgent(decode),
}));
process.stdout.write(`${JSON.stringify({ messages: stream.length, bytesPerMessage, results })}\n`);
