// Runs spec files again and again, optionally under CPU load, and counts how often each run passed:
// a spec that depends on the machine's speed shows up as a run that fails. Bounded: `--times` runs
// (default 20), one after the other, each a fresh mocha process; the load stops with the last run.
//
//   node tools/specRepeat.ts [--times 20] [--load N] spec/a.spec.ts spec/b.spec.ts …
//
// `--load N` keeps N busy-looping worker threads spinning for the whole loop (as Debian's `stress
// --cpu N` would), so the specs compete for the cores. Prints one line per run and, last, the plain
// closing line `N passed, N failed`; exits non-zero when a run failed.

import { spawn } from 'node:child_process';
import { Worker } from 'node:worker_threads';

interface Options {
  readonly times: number;
  readonly load: number;
  readonly files: readonly string[];
}

function parse(args: readonly string[]): Options {
  let times = 20;
  let load = 0;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--times') times = Number(args[++i]);
    else if (arg === '--load') load = Number(args[++i]);
    else files.push(arg);
  }
  if (!Number.isInteger(times) || times < 1 || !Number.isInteger(load) || load < 0 || files.length === 0)
    throw new Error('usage: node tools/specRepeat.ts [--times N] [--load N] SPEC…');
  return { times, load, files };
}

/** A thread that spins until terminated: CPU load without any other effect. */
const busy = (): Worker => new Worker('for (;;) {}', { eval: true });

function runOnce(files: readonly string[]): Promise<{ ok: boolean; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn('node_modules/.bin/mocha', [...files], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    child.on('close', (code) => resolve({ ok: code === 0, tail: output }));
  });
}

const options = parse(process.argv.slice(2));
const workers = Array.from({ length: options.load }, busy);
let passed = 0;
let failed = 0;
try {
  for (let run = 1; run <= options.times; run++) {
    const started = Date.now();
    const { ok, tail } = await runOnce(options.files);
    if (ok) passed++;
    else failed++;
    const summary = /(\d+) passing[\s\S]*?(?:(\d+) pending)?[\s\S]*?(?:(\d+) failing)?\s*$/.exec(tail);
    console.log(
      `run ${run}/${options.times}: ${ok ? 'passed' : 'FAILED'} (${summary?.[1] ?? '?'} passing, ${summary?.[3] ?? 0} failing, ${Math.round((Date.now() - started) / 1000)} s)`,
    );
    if (!ok) console.log(tail.split('\n').slice(-60).join('\n'));
  }
} finally {
  await Promise.all(workers.map((w) => w.terminate()));
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
