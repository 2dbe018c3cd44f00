// Rollout pins on this replica (docs/jobs.md "config_rollout"): the reached targets of each rollout
// are published as RemoteConfigPinned, so the desired-config projection gives them the new revision
// wherever they connect. Only changes are published: a pin that appeared, moved or went away.

import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { Pin } from './jobTargetRows.ts';

export interface RolloutPins {
  /** The pins now (every rollout that pins), as read from the database. */
  update(pins: readonly Pin[]): void;
}

export function createRolloutPins(publish: (event: FleetEvent) => void, now: () => number): RolloutPins {
  /** Config name → what its pin was last published as. */
  let pinned = new Map<string, string>();
  return {
    update(pins) {
      const next = new Map<string, string>();
      for (const { config, uids } of pins) {
        const key = `${config.revision}:${uids.join(',')}`;
        next.set(config.name, key);
        if (pinned.get(config.name) !== key)
          publish({ type: 'RemoteConfigPinned', at: now(), data: { name: config.name, config, uids } });
      }
      for (const name of pinned.keys())
        if (!next.has(name))
          publish({ type: 'RemoteConfigPinned', at: now(), data: { name, config: null, uids: [] } });
      pinned = next;
    },
  };
}
