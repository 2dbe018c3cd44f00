// Build identity for /api/status and svc_build_info: version from package.json, commit from the
// environment (SVC_BUILD_COMMIT) or git, else "unknown"; the runtime version in `go_version`, a
// field name kept for clients of existing OpAMP servers.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
  /** The runtime version (process.version); named for compatibility with existing clients. */
  readonly go_version: string;
}

const packageJson = new URL('../../package.json', import.meta.url);

function gitCommit(): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    });
    return out.toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

export function readBuildInfo(env: Readonly<Record<string, string | undefined>>): BuildInfo {
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const commit = env.SVC_BUILD_COMMIT || gitCommit() || 'unknown';
  return Object.freeze({ version, commit, go_version: process.version });
}
