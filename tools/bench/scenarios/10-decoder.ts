// The hand-written AgentToServer decoder against protobufjs's generated code, so the hand-written one
// keeps its place by a number. protobufjs-cli's pbjs generates a static module (decode only) from the
// project's own proto files into .tmp/bench-pbjs/ (ignored) at every run; each measurement runs in
// its own process (decoder/decodeRun.ts) over the realistic status mix.

import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ResultRow, Scenario } from '../scenario.ts';
import { median, round } from '../support/numbers.ts';
import { repoRoot } from '../support/serverProcess.ts';

const run = promisify(execFile);

interface Measurement {
  messages: number;
  bytesPerMessage: number;
  results: { name: string; nsPerMessage: number; retainedPerAgent: number }[];
}

/** pbjs's static module for AgentToServer: decode functions only, as the service would need. */
async function generateStatic(): Promise<string> {
  const dir = join(repoRoot, '.tmp', 'bench-pbjs');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, 'opamp.js');
  const pbjs = join(repoRoot, 'node_modules', 'protobufjs-cli', 'bin', 'pbjs');
  const flags = [
    '--no-create',
    '--no-encode',
    '--no-verify',
    '--no-convert',
    '--no-delimited',
    '--no-comments',
  ];
  await run(
    process.execPath,
    [pbjs, '-t', 'static-module', '-w', 'es6', ...flags, '-o', out, 'proto/opamp/v1/opamp.proto'],
    {
      cwd: repoRoot,
    },
  );
  return out;
}

const scenario: Scenario = {
  order: 10,
  name: 'decoder',
  title: 'AgentToServer decoding: hand-written against protobufjs generated code',
  async run(ctx) {
    const agents = ctx.quick ? 200 : 2000;
    const rounds = ctx.quick ? 4 : 8;
    const staticModule = await generateStatic();
    const runs: Measurement[] = [];
    for (let i = 0; i < ctx.runs; i++) {
      const { stdout } = await run(
        process.execPath,
        [
          '--expose-gc',
          join(repoRoot, 'tools/bench/decoder/decodeRun.ts'),
          staticModule,
          String(agents),
          String(rounds),
        ],
        { cwd: repoRoot, maxBuffer: 1 << 20 },
      );
      runs.push(JSON.parse(stdout) as Measurement);
      ctx.log(
        `  run ${i + 1}: ${runs[i]!.results.map((r) => `${r.name} ${round(r.nsPerMessage)} ns`).join(', ')}`,
      );
    }
    const names = runs[0]!.results.map((r) => r.name);
    const of = (name: string, key: 'nsPerMessage' | 'retainedPerAgent') =>
      median(runs.map((m) => m.results.find((r) => r.name === name)![key]));
    const handWritten = of(names[0]!, 'nsPerMessage');
    const rows: ResultRow[] = names.map((name) => ({
      decoder: name,
      'CPU ns / message (median)': round(of(name, 'nsPerMessage')),
      'messages / CPU-s': round(1e9 / of(name, 'nsPerMessage')),
      'time vs hand-written': `${round(of(name, 'nsPerMessage') / handWritten, 2)}×`,
      'heap kept per first report, bytes': round(of(name, 'retainedPerAgent')),
    }));
    const domain = of('pbjs static + translation', 'nsPerMessage');
    return {
      rows,
      conditions: [
        `${agents} agents of the realistic mix (support/statusMix.ts), ${runs[0]!.messages} messages per pass (alternately a bare heartbeat and the next change: health with a component map, 1 KiB effective config, health back, description), ${round(runs[0]!.bytesPerMessage)} bytes on average`,
        "CPU time of the decoding process (user + system), best of 7 passes after a warm-up pass, the ways taking turns; heap kept: heapUsed after decoding every agent's first report and keeping the results, after full collections, per agent",
        '"pbjs static": `pbjs -t static-module -w es6` (decode only) generated from proto/opamp/v1 at this run; "+ translation" adds wireToData.ts fromWire, which makes the same domain shape the hand-written decoder reads into (the service needs that shape, so this is the alternative to compare with); reflection is what the service falls back to for messages the hand-written reader leaves',
        `each figure is the median of ${ctx.runs} run(s), each in its own process`,
      ],
      notes: [
        `hand-written decoding takes ${round(handWritten / domain, 2)}× the CPU time of pbjs static code + translation for the same domain message`,
      ],
    };
  },
};

export default scenario;
