// Where the real peers that `npm run peers` (tools/peers/build.sh) builds are, at the versions pinned
// in tools/peers/versions.env. A spec asks for its peer with `peerBinary`: under CI a missing binary
// fails the spec with the reason (the build's own error when it left one), never a silent skip;
// elsewhere the spec is skipped with the command that builds it.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const peersDir = process.env.PEERS_DIR ?? join(root, '.peers');

export type PeerName = 'supervisor' | 'collector' | 'agent' | 'hydra';

export function peerVersions(): Readonly<Record<string, string>> {
  const text = readFileSync(join(root, 'tools', 'peers', 'versions.env'), 'utf8');
  const entries = text
    .split('\n')
    .map((line) => /^([A-Z_]+)=(\S+)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!] as const);
  return Object.fromEntries(entries);
}

function binaryName(peer: PeerName): string {
  const v = peerVersions();
  switch (peer) {
    case 'supervisor':
      return `opampsupervisor-${v.OTELCOL_CONTRIB_VERSION}`;
    case 'collector':
      return `otelcol-peers-${v.OTELCOL_CORE_VERSION}`;
    case 'agent':
      return `opamp-agent-${v.OPAMP_GO_VERSION}-${agentSources()}`;
    case 'hydra':
      return `hydra-${v.HYDRA_VERSION}`;
    default: {
      const unknown: never = peer;
      return unknown;
    }
  }
}

/** The agent is the project's own code: its binary is named after its sources too (as build.sh does). */
function agentSources(): string {
  const dir = join(root, 'tools', 'peers', 'agent');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.go') || name === 'go.mod' || name === 'go.sum')
    .sort();
  const hash = createHash('sha256');
  for (const name of files) hash.update(readFileSync(join(dir, name)));
  return hash.digest('hex').slice(0, 12);
}

/** The peer's binary, or: fails (CI) / skips (elsewhere) the calling spec with the reason. */
export function peerBinary(ctx: Mocha.Context, peer: PeerName): string {
  const file = join(peersDir, 'bin', binaryName(peer));
  if (existsSync(file)) return file;
  const failure = join(peersDir, 'failed', peer);
  const why = existsSync(failure) ? `: the build failed with\n${readFileSync(failure, 'utf8')}` : '';
  const reason = `peer ${peer} is not built (${file} is missing; run \`npm run peers\`)${why}`;
  if (process.env.CI === 'true') throw new Error(reason);
  console.warn(`      skipped: ${reason}`);
  ctx.skip();
}
