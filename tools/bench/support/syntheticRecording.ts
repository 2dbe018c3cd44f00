// Writes a synthetic recording for the replay benchmark: `agents` WebSocket agents, each sending a
// full status report (description, health, 1 KiB effective config) and then heartbeats every
// `heartbeatMs`, spread evenly; 1 % of heartbeats carry a health change. Heartbeats are encoded by
// hand (they are three fields) so writing a million records takes seconds, not minutes.

import { closeSync, openSync, writeSync } from 'node:fs';
import { encodeRecord, encodePreamble } from '../../../src/io/recorder/recordingFormat.ts';
import { createSimAgent, nextMessage, simulatedCapabilities } from '../../simulate/agentModel.ts';

export interface SyntheticOptions {
  readonly file: string;
  readonly messages: number;
  readonly agents: number;
  readonly heartbeatMs?: number;
  readonly startedAt?: number;
}

function varint(n: number, out: number[]): void {
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

function heartbeat(uidBytes: Uint8Array, seq: number): Uint8Array {
  const bytes = [0x0a, 16, ...uidBytes, 0x10];
  varint(seq, bytes);
  bytes.push(0x20);
  varint(simulatedCapabilities, bytes);
  return Uint8Array.from(bytes);
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
  const agents = Array.from({ length: options.agents }, (_, i) => createSimAgent(i));
  const messageOptions = { configBytes: 1024, attributes: 10 };
  const step = heartbeatMs / options.agents;
  let written = 0;
  for (let round = 0; written < options.messages; round++) {
    for (let i = 0; i < agents.length && written < options.messages; i++) {
      const agent = agents[i]!;
      const flap = round > 0 && (round * 31 + i) % 100 === 0;
      const payload =
        round === 0 || flap
          ? nextMessage(agent, messageOptions, flap)
          : heartbeat(agent.uidBytes, agent.sequenceNum++);
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
