// GET /api/status (SPEC "Status summary"): SPEC's fields, plus `agent_authentication` (issue 22:
// whether the OpAMP listener makes agents prove who they are, so an open listener is visible where
// operators look). started_at and uptime come from the injected clock, so specs run it in virtual time.

import type { BuildInfo } from '../../io/buildInfo.ts';
import type { FleetCounts } from '../../projections/registry/fleetCounts.ts';
import { rfc3339FromMs } from './time.ts';

/** How agents may authenticate on the OpAMP listener; neither: any client may claim any id. */
export interface AgentAuthentication {
  /** agents.tokens is set: every OpAMP request carries a known token. */
  readonly tokens: boolean;
  /** The OpAMP listener verifies client certificates (opamp_tls.client_ca_file) and requires one. */
  readonly client_certificates: boolean;
  /**
   * The agent CA (agents.ca) issues certificates over OpAMP and the listener takes them as
   * credentials; they are not required of agents that bring none (tokens or open mode remain).
   */
  readonly agent_certificates: boolean;
}

export interface StatusView {
  readonly version: string;
  readonly commit: string;
  readonly go_version: string;
  readonly started_at: string | null;
  readonly uptime_seconds: number;
  readonly fleet: FleetCounts;
  readonly agent_authentication: AgentAuthentication & { readonly required: boolean };
}

export function statusView(
  build: BuildInfo,
  startedAtMs: number,
  nowMs: number,
  fleet: FleetCounts,
  agents: AgentAuthentication,
): StatusView {
  return {
    version: build.version,
    commit: build.commit,
    go_version: build.go_version,
    started_at: rfc3339FromMs(startedAtMs),
    uptime_seconds: Math.max(0, Math.floor((nowMs - startedAtMs) / 1000)),
    fleet: { ...fleet },
    agent_authentication: { required: agents.tokens || agents.client_certificates, ...agents },
  };
}
