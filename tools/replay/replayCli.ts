// `npx node tools/replay.ts` (npm run replay): offline replay of a recording, or sending it to a live
// server. Usage in docs/tools.md.

import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/io/config/loadConfig.ts';
import { parseDuration } from '../../src/projections/units/duration.ts';
import { parseInstanceUid } from '../../src/events/ids.ts';
import { describeTruncation, openRecording } from '../../src/io/recorder/recordingReader.ts';
import { replayOffline, type FleetSettings } from './replayOffline.ts';
import { sendLive } from './sendLive.ts';
import { writeReplayJson, type ReplayOutput } from './writeJson.ts';

export const replayUsage = `usage: replay FILE [options]
  offline (default): prints {summary, timelines, registry} as JSON on stdout
    --uid UID            only this agent (repeatable)
    --until TIME         stop at TIME: ISO 8601, Unix ms, or +DURATION from the recording start (+90s)
    --output WHAT        all | registry | timeline | summary (default all)
    --config FILE        take fleet settings from a service config file instead of the recording header
  live: sends the recording to a running server
    --to URL             the server's OpAMP base URL, e.g. http://127.0.0.1:4320
    --speed N|max        1 = recorded pace (default), 10 = ten times faster, max = as fast as answered
    --transport T        recorded | ws | http (default recorded)`;

export class UsageError extends Error {}

/**
 * The replay's own timing, one JSON line on stderr: stdout holds only what the recording determines,
 * so two replays of one recording print the same bytes there.
 */
function writeTiming(timing: Record<string, number>): void {
  process.stderr.write(`${JSON.stringify({ timing })}\n`);
}

/** ISO 8601, Unix ms, or +DURATION relative to `start`. */
export function parseTime(text: string, start: number): number {
  if (text.startsWith('+')) {
    const ms = parseDuration(text.slice(1));
    if (ms === undefined) throw new UsageError(`--until ${text}: not a duration such as +90s or +1h30m`);
    return start + ms;
  }
  if (/^\d+$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`--until ${text}: not an ISO 8601 time, Unix ms or +duration`);
  return ms;
}

function parseSpeed(text: string | undefined): number {
  if (text === undefined) return 1;
  if (text === 'max') return Infinity;
  const n = Number(text);
  if (!(n > 0)) throw new UsageError(`--speed ${text}: a positive number or max`);
  return n;
}

export async function runReplayCli(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      uid: { type: 'string', multiple: true },
      until: { type: 'string' },
      output: { type: 'string', default: 'all' },
      config: { type: 'string' },
      to: { type: 'string' },
      speed: { type: 'string' },
      transport: { type: 'string', default: 'recorded' },
      help: { type: 'boolean' },
    },
  });
  if (values.help === true) {
    process.stdout.write(`${replayUsage}\n`);
    return 0;
  }
  const [file] = positionals;
  if (file === undefined || positionals.length > 1) throw new UsageError('give exactly one recording file');
  const output = values.output as ReplayOutput;
  if (!['all', 'registry', 'timeline', 'summary'].includes(output))
    throw new UsageError(`--output ${output}: all, registry, timeline or summary`);
  const transport = values.transport as 'recorded' | 'ws' | 'http';
  if (!['recorded', 'ws', 'http'].includes(transport))
    throw new UsageError(`--transport ${transport}: recorded, ws or http`);
  const only = values.uid?.map((u) => {
    const uid = parseInstanceUid(u);
    if (uid === undefined) throw new UsageError(`--uid ${u}: not a UUID or ULID`);
    return uid;
  });

  const reader = await openRecording(file);
  const until = values.until === undefined ? undefined : parseTime(values.until, reader.header.startedAt);
  const started = performance.now();
  if (values.to !== undefined) {
    const result = await sendLive(reader, {
      url: values.to,
      speed: parseSpeed(values.speed),
      transport,
      until,
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    writeTiming({ elapsed_ms: Math.round(performance.now() - started) });
  } else {
    let fleet: FleetSettings | undefined;
    if (values.config !== undefined) fleet = loadConfig({ file: values.config }).fleet;
    const onlySet = only && new Set<string>(only);
    const result = await replayOffline(reader, {
      fleet,
      until,
      only: onlySet,
      timelines: output === 'all' || output === 'timeline',
    });
    const elapsedMs = performance.now() - started;
    await writeReplayJson(process.stdout, result, output, onlySet);
    writeTiming({
      elapsed_ms: Math.round(elapsedMs),
      messages_per_second: Math.round(result.messages / Math.max(elapsedMs / 1000, 1e-9)),
    });
  }
  if (reader.summary.truncated)
    process.stderr.write(`warning: ${describeTruncation(reader.summary.truncated)}\n`);
  for (const [kind, n] of reader.summary.unknownKinds)
    process.stderr.write(`warning: skipped ${n} records of unknown kind ${kind}\n`);
  return 0;
}
