// The desired-config projection's adapter: folds config events (desiredConfigs.ts) and answers, for
// any agent record (local or stored), its desired config. Answers are remembered per agent
// description and config version, so a heartbeat costs one WeakMap lookup; compositions are interned
// by their set of revisions, so agents that receive the same configs share one object (and one
// encoded message at the edge), whatever the bodies' size.

import { Subject, type Observable, type Subscription } from 'rxjs';
import type { AgentDescription } from '../../events/agentData.ts';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { AgentState } from '../agent/agentState.ts';
import type { ProjectionErrorHandler } from '../registry/registryProjection.ts';
import { composeDesired, desiredKey, type DesiredConfig } from './desiredConfig.ts';
import {
  evolveDesiredConfigs,
  initialDesiredConfigs,
  matchingEntries,
  type DesiredConfigsState,
} from './desiredConfigs.ts';

export interface DesiredConfigs {
  /** The agent's desired config, or undefined for none (no enabled config targets it). */
  desiredFor(agent: AgentState): DesiredConfig | undefined;
  /** The configs in force. */
  current(): DesiredConfigsState;
  /** Emits the new version after every change that can alter desired configs. */
  readonly changes$: Observable<number>;
}

export interface DesiredConfigProjection extends DesiredConfigs {
  stop(): void;
}

interface Memo {
  readonly version: number;
  readonly desired: DesiredConfig | undefined;
}

export function createDesiredConfigProjection(
  events$: Observable<FleetEvent>,
  onError: ProjectionErrorHandler,
): DesiredConfigProjection {
  let state = initialDesiredConfigs;
  const memo = new WeakMap<AgentDescription, Memo>();
  // Two generations of interned compositions: a composition unused since the previous change is
  // dropped at the next one, so old bodies are not kept alive by the interning.
  let compositions = new Map<string, DesiredConfig>();
  let previous = new Map<string, DesiredConfig>();
  let compositionsVersion = state.version;
  const changes = new Subject<number>();

  const subscription: Subscription = events$.subscribe((event) => {
    try {
      const next = evolveDesiredConfigs(state, event);
      if (next === state) return;
      state = next;
      changes.next(state.version);
    } catch (error) {
      onError('desired-config', error);
    }
  });

  function intern(agent: AgentState): DesiredConfig | undefined {
    const entries = matchingEntries(state, agent);
    if (entries.length === 0) return undefined;
    if (compositionsVersion !== state.version) {
      previous = compositions;
      compositions = new Map();
      compositionsVersion = state.version;
    }
    const key = desiredKey(entries);
    let desired = compositions.get(key) ?? previous.get(key);
    desired ??= composeDesired(entries)!;
    compositions.set(key, desired);
    return desired;
  }

  function desiredFor(agent: AgentState): DesiredConfig | undefined {
    const description = agent.description;
    if (description === null || state.names.length === 0) return undefined;
    const hit = memo.get(description);
    if (hit !== undefined && hit.version === state.version) return hit.desired;
    const desired = intern(agent);
    memo.set(description, { version: state.version, desired });
    return desired;
  }

  return {
    desiredFor,
    current: () => state,
    changes$: changes.asObservable(),
    stop: () => {
      subscription.unsubscribe();
      changes.complete();
    },
  };
}
