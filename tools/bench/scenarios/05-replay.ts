// Offline replay throughput: a synthetic recording of 1,000,000 messages from 10,000 WebSocket agents
// (support/syntheticRecording.ts: full reports, then every 30 s a heartbeat or a change of health,
// effective config or description) replayed by `tools/replay.ts --output summary` in its own process,
// once per run. The rate is the replay's own timing, which it prints on stderr; its stdout must be the
// same bytes every time.

import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Scenario } from '../scenario.ts';
import { median, round } from '../support/numbers.ts';
import { repoRoot } from '../support/serverProcess.ts';
import { writeSyntheticRecording } from '../support/syntheticRecording.ts';

const run = promisify(execFile);

const scenario: Scenario = {
  order: 5,
  name: 'replay',
  title: 'Offline replay throughput',
  async run(ctx) {
    const messages = ctx.quick ? 20_000 : 1_000_000;
    const agents = ctx.quick ? 500 : 10_000;
    const file = join(ctx.dir, 'replay.opamprec');
    writeSyntheticRecording({ file, messages, agents });
    const rates: number[] = [];
    const outputs = new Set<string>();
    for (let i = 0; i < ctx.runs; i++) {
      const { stdout, stderr } = await run(
        process.execPath,
        [join(repoRoot, 'tools/replay.ts'), file, '--output', 'summary'],
        { maxBuffer: 1 << 24 },
      );
      outputs.add(stdout);
      const { summary } = JSON.parse(stdout) as { summary: { messages: number } };
      if (summary.messages !== messages)
        throw new Error(`replayed ${summary.messages} of ${messages} messages`);
      const timingLine = stderr.split('\n').find((line) => line.startsWith('{"timing"'));
      if (timingLine === undefined) throw new Error(`no timing on stderr: ${stderr.slice(0, 200)}`);
      const { timing } = JSON.parse(timingLine) as { timing: { messages_per_second: number } };
      rates.push(timing.messages_per_second);
      ctx.log(`  run ${i + 1}: ${timing.messages_per_second} messages/s`);
    }
    const m = median(rates);
    return {
      rows: [
        {
          messages,
          agents,
          'file MiB': round(statSync(file).size / 1048576, 1),
          'messages / s (median)': round(m),
          'min / max': `${Math.min(...rates)} / ${Math.max(...rates)}`,
          'stdout identical across runs': outputs.size === 1 ? 'yes' : `no (${outputs.size} different)`,
        },
      ],
      conditions: [
        `recording: ${agents} WebSocket agents; each sends a full report (10 attributes, health with a component map of 2 pipelines × 3 components, 1 KiB effective config), then one message per 30 s of recorded time: alternately a bare heartbeat and the next change of a cycle of health change, effective-config change, health change back, description change (50 % heartbeats, 25 % health, 12.5 % effective configs, 12.5 % descriptions)`,
        "replayed by `tools/replay.ts FILE --output summary` in its own process, through the service core (handler, registry, compliance, liveness sweep in virtual time); the rate is the replay's own timing from its stderr",
        `each figure is the median of ${ctx.runs} run(s) of the same recording`,
      ],
      goals: [`≥ 200,000 messages/s: ${m >= 200_000 ? 'met' : 'not met'} (${round(m)})`],
    };
  },
};

export default scenario;
