// GET /api/status (SPEC "Status summary"): exactly these fields. started_at and uptime come from the
// injected clock, so specs can run it in virtual time.

import type { BuildInfo } from '../../io/buildInfo.ts';
import type { FleetCounts } from '../../projections/registry/fleetCounts.ts';
import { rfc3339FromMs } from './time.ts';

export interface StatusView {
  readonly version: string;
  readonly commit: string;
  readonly go_version: string;
  readonly started_at: string | null;
  readonly uptime_seconds: number;
  readonly fleet: FleetCounts;
}

export function statusView(build: BuildInfo, startedAtMs: number, nowMs: number, fleet: FleetCounts): StatusView {
  return {
    version: build.version,
    commit: build.commit,
    go_version: build.go_version,
    started_at: rfc3339FromMs(startedAtMs),
    uptime_seconds: Math.max(0, Math.floor((nowMs - startedAtMs) / 1000)),
    fleet: { ...fleet },
  };
}
