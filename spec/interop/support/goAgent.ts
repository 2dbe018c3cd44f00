// The project's agent on opamp-go's client library (tools/peers/agent) as a spec starts it, and what
// it printed: one line per event (docs/interop.md lists them), counted to prove what it was sent.

import { tmpdir } from 'node:os';
import { opampEndpoint, type Transport } from './collectorPeers.ts';
import { startPeer, type PeerProcess } from './peerProcess.ts';
import { peerBinary } from './peers.ts';

export interface GoAgentOptions {
  readonly opampUrl: string;
  readonly transport: Transport;
  readonly uid: string;
  /** More flags, e.g. ['-rollback-on', 'fail-at-start']. */
  readonly args?: readonly string[];
}

/** A config whose body holds `fail-at-start` fails at start, and the agent rolls back from it. */
export const rollbackArgs = ['-rollback-on', 'fail-at-start'];

/** Starts the agent with a 1 s heartbeat (and poll, over plain HTTP) and `service.name` go-agent. */
export function startGoAgent(ctx: Mocha.Context, options: GoAgentOptions): PeerProcess {
  const args = [
    ...['-endpoint', opampEndpoint(options.opampUrl, options.transport)],
    ...['-instance-uid', options.uid, '-heartbeat', '1s', '-service-name', 'go-agent'],
    ...(options.args ?? []),
  ];
  return startPeer(peerBinary(ctx, 'agent'), args, tmpdir());
}

/** How many lines the peer printed that are exactly this one. */
export const linesOf = (peer: PeerProcess, line: string): number =>
  peer
    .output()
    .split('\n')
    .filter((l) => l === line).length;

/** Its `config …` lines in order (over plain HTTP every poll prints `connected` between them). */
export const configLines = (peer: PeerProcess): string[] =>
  peer
    .output()
    .split('\n')
    .filter((l) => l.startsWith('config '));
