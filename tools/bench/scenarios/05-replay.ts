// Offline replay throughput: a synthetic recording of 1,000,000 messages (10,000 WebSocket agents:
// full reports, then heartbeats every 30 s with 1 % health changes) replayed by `tools/replay.ts
// --output summary` in its own process, several times.

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
    for (let i = 0; i < ctx.runs; i++) {
      const { stdout } = await run(
        process.execPath,
        [join(repoRoot, 'tools/replay.ts'), file, '--output', 'summary'],
        { maxBuffer: 1 << 24 },
      );
      const { summary } = JSON.parse(stdout) as {
        summary: { messages: number; elapsed_ms: number; messages_per_second: number };
      };
      if (summary.messages !== messages)
        throw new Error(`replayed ${summary.messages} of ${messages} messages`);
      rates.push(summary.messages_per_second);
      ctx.log(`  run ${i + 1}: ${summary.messages_per_second} messages/s`);
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
        },
      ],
      goals: [`≥ 200,000 messages/s: ${m >= 200_000 ? 'met' : 'not met'} (${round(m)})`],
    };
  },
};

export default scenario;
