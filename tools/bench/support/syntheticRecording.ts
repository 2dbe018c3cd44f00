// Writes a synthetic recording for the replay benchmark: `agents` WebSocket agents, each sending a
// full status report (10 attributes, health with a component map, 1 KiB effective config) and then
// one message every `heartbeatMs`, spread evenly: every other one a bare heartbeat, the others the
// realistic change cycle of statusMix.ts (a health change, an effective-config change, a health
// change back, a description change). So half the messages carry a report: a quarter health, an
// eighth effective configs, an eighth descriptions. Messages come pre-encoded from statusMix.ts, so
// writing a million records takes seconds.

import { closeSync, openSync, writeSync } from 'node:fs';
import { encodeRecord, encodePreamble } from '../../../src/io/recorder/recordingFormat.ts';
import { createLoadAgent } from './statusMix.ts';

export interface SyntheticOptions {
  readonly file: string;
  readonly messages: number;
  readonly agents: number;
  readonly heartbeatMs?: number;
  readonly startedAt?: number;
}

export function writeSyntheticRecording(options: SyntheticOptions): { messages: number; bytes: number } {
  const heartbeatMs = options.heartbeatMs ?? 30_000;
  const startedAt = options.startedAt ?? Date.UTC(2026, 0, 1);
  const fd = openSync(options.file, 'w');
  const fleet = {
    heartbeat_interval: heartbeatMs,
    stale_missed_heartbeats: 3,
    required_attributes: ['service.name'],
  };
  let pending: Buffer[] = [encodePreamble({ startedAt, fleet })];
  let pendingBytes = pending[0]!.length;
  let bytes = 0;
  const flush = () => {
    const b = Buffer.concat(pending);
    writeSync(fd, b);
    bytes += b.length;
    pending = [];
    pendingBytes = 0;
  };
  const agents = Array.from({ length: options.agents }, (_, i) => createLoadAgent(i, 'realistic'));
  const step = heartbeatMs / options.agents;
  let written = 0;
  for (let round = 0; written < options.messages; round++) {
    for (let i = 0; i < agents.length && written < options.messages; i++) {
      const agent = agents[i]!;
      const payload = round === 0 ? agent.first() : round % 2 === 0 ? agent.heartbeat() : agent.next();
      const record = encodeRecord({
        kind: 'message',
        receivedAt: startedAt + round * heartbeatMs + Math.floor(i * step),
        connectionId: i + 1,
        transport: 'ws',
        remoteAddr: `127.0.0.${1 + (i % 8)}:${20000 + (i % 40000)}`,
        tlsSubject: null,
        viaGateway: false,
        payload,
      });
      pending.push(record);
      pendingBytes += record.length;
      written++;
      if (pendingBytes > 4 * 1024 * 1024) flush();
    }
  }
  flush();
  closeSync(fd);
  return { messages: written, bytes };
}
