// Writes the replay result as one JSON document, piece by piece, so a registry of 100,000 agents or
// a long timeline never has to exist as one string. Honours back-pressure on the output stream. The
// document holds only what the recording determines: two replays of one recording write the same
// bytes (the replay's own timing goes to stderr, replayCli.ts).

import type { Writable } from 'node:stream';
import { agentJson } from './agentJson.ts';
import type { ReplayResult } from './replayOffline.ts';

export type ReplayOutput = 'all' | 'registry' | 'timeline' | 'summary';

export function replaySummary(result: ReplayResult) {
  return {
    records: result.read.records,
    messages: result.messages,
    connections_closed: result.closes,
    rejected_messages: result.rejected,
    projection_errors: result.projectionErrors,
    unknown_record_kinds: Object.fromEntries(result.read.unknownKinds),
    truncated: result.read.truncated,
    ended_at: new Date(result.endedAt).toISOString(),
    agents: result.registry.size,
    compliance: {
      missing: Object.fromEntries(result.compliance.missing),
      conflicts: Object.fromEntries(result.compliance.conflicts),
    },
    fleet: result.fleet,
  };
}

export async function writeReplayJson(
  out: Writable,
  result: ReplayResult,
  output: ReplayOutput,
  only?: ReadonlySet<string>,
): Promise<void> {
  const write = (text: string): Promise<void> | undefined =>
    out.write(text) ? undefined : new Promise((resolve) => out.once('drain', () => resolve()));
  await write(`{"summary":${JSON.stringify(replaySummary(result))}`);
  if (output === 'all' || output === 'timeline') {
    await write(',"timelines":{');
    let first = true;
    for (const [uid, t] of result.timelines) {
      await write(
        `${first ? '' : ','}\n${JSON.stringify(uid)}:${JSON.stringify({ check_ins: t.checkIns, entries: t.entries })}`,
      );
      first = false;
    }
    await write('}');
  }
  if (output === 'all' || output === 'registry') {
    await write(',"registry":[');
    let first = true;
    for (const agent of result.registry.ordered()) {
      if (only !== undefined && !only.has(agent.uid)) continue;
      await write(`${first ? '' : ','}\n${JSON.stringify(agentJson(agent))}`);
      first = false;
    }
    await write(']');
  }
  await write('}\n');
}
