// Log lines an agent causes are bounded per agent (src/io/agentLog.ts), through the event log as the
// service wires it: a virtual clock, a JSON logger whose bytes the spec counts.

import { expect } from 'chai';
import { Writable } from 'node:stream';
import { Subject } from 'rxjs';
import type { FleetEvent } from '../../src/events/fleetEvent.ts';
import type { InstanceUid } from '../../src/events/ids.ts';
import { agentLogDefaults, createAgentLog } from '../../src/io/agentLog.ts';
import { createEventLog } from '../../src/io/eventLog.ts';
import { createLogger } from '../../src/io/logger.ts';
import { agentMessage, newUid, WsAgent } from '../support/agentClient.ts';
import { startApp } from '../support/startApp.ts';

const noisy = '00000000-0000-7000-8000-00000000000a' as InstanceUid;
const quiet = '00000000-0000-7000-8000-00000000000b' as InstanceUid;

function capture() {
  const lines: Record<string, unknown>[] = [];
  let bytes = 0;
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, bytes: () => bytes, logger: createLogger({ level: 'info', format: 'json', destination }) };
}

const failed = (uid: InstanceUid, at: number, errorMessage: string): FleetEvent => ({
  type: 'AgentRemoteConfigReported',
  at,
  data: { uid, status: { hash: 'ab', status: 'failed', errorMessage } },
});

describe('agent-caused log lines', () => {
  it("writes a bounded number of an agent's 1,000 failed statuses with 16 KiB errors, and counts the rest", () => {
    const { lines, bytes, logger } = capture();
    let now = 1_700_000_000_000;
    let suppressed = 0;
    const events$ = new Subject<FleetEvent>();
    const agentLog = createAgentLog(logger, { now: () => now, onSuppressed: () => suppressed++ });
    const log = createEventLog(events$, logger, agentLog);
    const error = 'e'.repeat(16 * 1024);
    for (let i = 0; i < 1000; i++) events$.next(failed(noisy, now, error));
    const budget = agentLogDefaults.linesPerWindow;
    expect(lines).to.have.length(budget);
    expect(suppressed).to.equal(1000 - budget);
    // Each line carries at most maxTextLength characters of the agent's text.
    expect(bytes()).to.be.below(budget * (agentLogDefaults.maxTextLength + 512));
    expect(String(lines[0]!.error)).to.match(/… \(16384 characters\)$/);

    // Another agent's line is written meanwhile.
    events$.next(failed(quiet, now, 'bad config'));
    expect(lines.at(-1)).to.include({ instance_uid: quiet, error: 'bad config' });

    // The next window's first line says how many of the agent's lines were left out.
    now += agentLogDefaults.windowMs;
    events$.next(failed(noisy, now, 'again'));
    expect(lines.at(-1)).to.include({ instance_uid: noisy, error: 'again', suppressed: 1000 - budget });
    log.stop();
  });
});

describe('agent-caused log lines in the running service', () => {
  it("writes a bounded share of one agent's failed statuses over a WebSocket and counts the rest in svc_log_lines_suppressed_total", async () => {
    const { lines, logger } = capture();
    const app = await startApp({ deps: { logger } });
    const agent = await WsAgent.open(app.urls.opamp);
    try {
      const uid = newUid();
      const sent = agentLogDefaults.linesPerWindow + 30;
      for (let i = 0; i < sent; i++) {
        const errorMessage = `${i} ${'e'.repeat(16 * 1024 - 8)}`;
        const remoteConfigStatus = { lastRemoteConfigHash: Buffer.from([i]), status: 3, errorMessage };
        await agent.send(agentMessage(uid, { sequenceNum: i, remoteConfigStatus }));
      }
      const failures = lines.filter((l) => l.msg === 'agent failed to apply its remote config');
      expect(failures).to.have.length(agentLogDefaults.linesPerWindow);
      const metrics = await app.telemetry.server.metrics();
      expect(metrics).to.match(/^svc_log_lines_suppressed_total 30$/m);
    } finally {
      await agent.close();
      await app.stop();
    }
  });
});
