// The nested component health of the agent detail view. Health times are Unix nanoseconds; 0 means
// not set and is shown as null.

import type { ComponentHealth } from '../../events/agentData.ts';
import { rfc3339FromNanos } from './time.ts';

export interface HealthView {
  readonly healthy: boolean;
  readonly status: string;
  readonly last_error: string;
  readonly start_time: string | null;
  readonly status_time: string | null;
  readonly components: Readonly<Record<string, HealthView>>;
}

/** Deeper component trees are cut here so a hostile report cannot blow the stack of a view. */
export const maxHealthDepth = 32;

export function healthView(health: ComponentHealth, depth = 0): HealthView {
  const components: Record<string, HealthView> = {};
  if (depth < maxHealthDepth) {
    for (const [name, child] of Object.entries(health.components)) components[name] = healthView(child, depth + 1);
  }
  return {
    healthy: health.healthy,
    status: health.status,
    last_error: health.lastError,
    start_time: rfc3339FromNanos(health.startTimeNanos),
    status_time: rfc3339FromNanos(health.statusTimeNanos),
    components,
  };
}
