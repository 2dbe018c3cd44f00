// Decodes the AgentCapabilities bitmask (OPAMP.md "AgentCapabilities") into named booleans. Unknown
// bits are not named; the raw value stays available as `capabilities`.

const bits = [
  ['reports_status', 0x1n],
  ['accepts_remote_config', 0x2n],
  ['reports_effective_config', 0x4n],
  ['accepts_packages', 0x8n],
  ['reports_package_statuses', 0x10n],
  ['reports_own_traces', 0x20n],
  ['reports_own_metrics', 0x40n],
  ['reports_own_logs', 0x80n],
  ['accepts_opamp_connection_settings', 0x100n],
  ['accepts_other_connection_settings', 0x200n],
  ['accepts_restart_command', 0x400n],
  ['reports_health', 0x800n],
  ['reports_remote_config', 0x1000n],
  ['reports_heartbeat', 0x2000n],
  ['reports_available_components', 0x4000n],
  ['reports_connection_settings_status', 0x8000n],
] as const;

export type CapabilityFlags = Record<(typeof bits)[number][0], boolean>;

export function capabilityFlags(capabilities: bigint): CapabilityFlags {
  const flags = {} as CapabilityFlags;
  for (const [name, bit] of bits) flags[name] = (capabilities & bit) !== 0n;
  return flags;
}
