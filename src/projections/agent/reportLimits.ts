// Limits on what one agent may report (issue 22; docs/security.md "Report limits"). Each default is
// far beyond anything a real Collector or supervisor reports, so only a broken or hostile agent meets
// one. checkReport answers the first limit a report breaks, as a value: the OpAMP handler refuses the
// message with ServerErrorResponse BadRequest carrying `reason`, counts it under
// svc_opamp_refused_total{reason=limit}, and folds nothing of it.
//
// Contract: time linear in the size of the report, and the walk stops at the first violation (a
// description of 200,000 attributes is refused after limit + 1 of them). Lengths are counted in
// UTF-16 code units (JavaScript string length), never more than the UTF-8 bytes the agent sent, so a
// limit of N lets no more than 2N bytes into memory per string. Health is walked without recursion,
// so no depth can overflow the stack.

import type {
  AgentDescription,
  ComponentHealth,
  ConnectionSettingsStatus,
  EffectiveConfig,
  RemoteConfigStatus,
} from '../../events/agentData.ts';

export interface ReportLimits {
  /** Identifying plus non-identifying attributes of one description. */
  readonly attribute_count: number;
  readonly attribute_key_length: number;
  readonly attribute_value_length: number;
  /** Sum of the effective config's file bodies and names, in UTF-16 code units. */
  readonly effective_config_size: number;
  readonly effective_config_files: number;
  /** Components in the whole health tree, the root excluded. */
  readonly health_components: number;
  /** Levels below the root: a root with components has depth 1, theirs 2. */
  readonly health_depth: number;
  /** A component's name, status and last_error. */
  readonly health_text_length: number;
  /** The error_message of remote_config_status and of connection_settings_status. */
  readonly status_error_length: number;
}

export type ReportLimit = keyof ReportLimits;

/** The defaults (config keys agents.limits.*). */
export const defaultReportLimits: ReportLimits = {
  attribute_count: 1024,
  attribute_key_length: 1024,
  attribute_value_length: 16 * 1024,
  effective_config_size: 8 * 1024 * 1024,
  effective_config_files: 1024,
  health_components: 10_000,
  health_depth: 16,
  health_text_length: 16 * 1024,
  status_error_length: 16 * 1024,
};

export interface LimitViolation {
  readonly limit: ReportLimit;
  readonly max: number;
  /** What was found when the walk stopped: for counts and sums, the first value past `max`. */
  readonly found: number;
  /** For the agent and the log: which limit, where, and its value. */
  readonly reason: string;
}

export interface Report {
  readonly description?: AgentDescription | undefined;
  readonly health?: ComponentHealth | undefined;
  readonly effectiveConfig?: EffectiveConfig | undefined;
  readonly remoteConfigStatus?: RemoteConfigStatus | undefined;
  readonly connectionSettingsStatus?: ConnectionSettingsStatus | undefined;
}

function violation(limit: ReportLimit, max: number, found: number, what: string): LimitViolation {
  return { limit, max, found, reason: `${what} exceeds agents.limits.${limit} (${found} > ${max})` };
}

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 64)}…` : text);

export function checkDescription(
  description: AgentDescription,
  limits: ReportLimits,
): LimitViolation | undefined {
  // The count runs on across both maps (checked on every description, so no array of the two).
  const identifying = checkAttributes(description.identifying, 0, limits);
  if (typeof identifying !== 'number') return identifying;
  const other = checkAttributes(description.nonIdentifying, identifying, limits);
  return typeof other === 'number' ? undefined : other;
}

/** The attributes' limits, counting on from `count`: the count after them, or the first broken. */
function checkAttributes(
  attributes: Readonly<Record<string, string>>,
  count: number,
  limits: ReportLimits,
): number | LimitViolation {
  for (const key in attributes) {
    if (++count > limits.attribute_count)
      return violation('attribute_count', limits.attribute_count, count, 'attribute count');
    if (key.length > limits.attribute_key_length)
      return violation('attribute_key_length', limits.attribute_key_length, key.length, 'attribute key');
    const value = attributes[key]!;
    if (value.length > limits.attribute_value_length)
      return violation(
        'attribute_value_length',
        limits.attribute_value_length,
        value.length,
        `value of attribute ${JSON.stringify(clip(key))}`,
      );
  }
  return count;
}

export function checkEffectiveConfig(
  config: EffectiveConfig,
  limits: ReportLimits,
): LimitViolation | undefined {
  let files = 0;
  let size = 0;
  for (const name in config) {
    if (++files > limits.effective_config_files)
      return violation(
        'effective_config_files',
        limits.effective_config_files,
        files,
        'effective config files',
      );
    size += name.length + config[name]!.body.length;
    if (size > limits.effective_config_size)
      return violation('effective_config_size', limits.effective_config_size, size, 'effective config size');
  }
  return undefined;
}

function checkHealthText(
  name: string,
  health: ComponentHealth,
  limits: ReportLimits,
): LimitViolation | undefined {
  const max = limits.health_text_length;
  const longest = Math.max(name.length, health.status.length, health.lastError.length);
  if (longest <= max) return undefined;
  return violation('health_text_length', max, longest, `health of component ${JSON.stringify(clip(name))}`);
}

function hasComponents(health: ComponentHealth): boolean {
  for (const _ in health.components) return true;
  return false;
}

/**
 * Breadth-first, one level at a time: each component is visited once, the walk ends early, and only
 * components that have components of their own are queued (most of a tree is leaves).
 */
export function checkHealth(root: ComponentHealth, limits: ReportLimits): LimitViolation | undefined {
  const rootText = checkHealthText('', root, limits);
  if (rootText !== undefined) return rootText;
  // Most health trees are one node (a check-in's flag): no level to walk, nothing allocated.
  let level: ComponentHealth[] | undefined = hasComponents(root) ? [root] : undefined;
  let count = 0;
  for (let depth = 1; level !== undefined; depth++) {
    let next: ComponentHealth[] | undefined;
    for (const health of level)
      for (const name in health.components) {
        if (depth > limits.health_depth)
          return violation('health_depth', limits.health_depth, depth, 'health depth');
        if (++count > limits.health_components)
          return violation('health_components', limits.health_components, count, 'health component count');
        const child = health.components[name]!;
        const text = checkHealthText(name, child, limits);
        if (text !== undefined) return text;
        if (hasComponents(child)) (next ??= []).push(child);
      }
    level = next;
  }
  return undefined;
}

/** An error text the agent reports of a config or of connection settings it was sent. */
function checkStatusError(
  status: { readonly errorMessage: string } | undefined,
  what: string,
  limits: ReportLimits,
): LimitViolation | undefined {
  const length = status?.errorMessage.length ?? 0;
  if (length <= limits.status_error_length) return undefined;
  return violation('status_error_length', limits.status_error_length, length, `error_message of ${what}`);
}

/** The first limit the report breaks, or undefined when it keeps them all. */
export function checkReport(report: Report, limits: ReportLimits): LimitViolation | undefined {
  return (
    (report.description && checkDescription(report.description, limits)) ??
    (report.effectiveConfig && checkEffectiveConfig(report.effectiveConfig, limits)) ??
    (report.health && checkHealth(report.health, limits)) ??
    checkStatusError(report.remoteConfigStatus, 'remote_config_status', limits) ??
    checkStatusError(report.connectionSettingsStatus, 'connection_settings_status', limits)
  );
}
