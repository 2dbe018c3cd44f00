// Pushes desired remote configs to WebSocket agents as soon as a config change alters them, instead
// of waiting for their next message (docs/remote-config.md "On the wire"). Plain-HTTP agents cannot
// be pushed to; they get the config in the reply to their next poll.
//
// On every change the pusher walks the agents this process holds over a WebSocket, in batches of
// `batchSize` per turn of the scheduler so other messages keep being answered meanwhile, and asks
// the handler to push to each: the offer rule decides, so agents whose desired config did not
// change, that lack AcceptsRemoteConfig, or that already have it, get nothing. A change that arrives
// during a walk restarts it (the rule makes a second visit free for agents already served).

import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import type { InstanceUid } from '../../events/ids.ts';
import type { ConnectionOwners } from './connectionOwners.ts';
import type { OpampHandler } from './handler.ts';

export interface ConfigPusherDeps {
  /** The desired-config projection's change stream. */
  readonly changes$: Observable<unknown>;
  readonly handler: Pick<OpampHandler, 'push'>;
  /** Who holds which agent: the agents held are the ones a push can reach. */
  readonly owners: Pick<ConnectionOwners, 'held'>;
  readonly scheduler: SchedulerLike;
  readonly onError: (error: unknown) => void;
  /** Agents per turn; default 250. */
  readonly batchSize?: number;
}

export interface ConfigPusher {
  /** Agents pushed to since start (tools and specs). */
  readonly pushed: number;
  /** True while a walk is in progress. */
  readonly busy: boolean;
  stop(): void;
}

export function createConfigPusher(deps: ConfigPusherDeps): ConfigPusher {
  const batchSize = deps.batchSize ?? 250;
  let queue: readonly InstanceUid[] = [];
  /** Where the walk is in `queue` (taking from the front of 100,000 ids moved them all each turn). */
  let next = 0;
  let turn: Subscription | undefined;
  let pushed = 0;

  function step(): void {
    turn = undefined;
    try {
      const end = Math.min(queue.length, next + batchSize);
      // Moved on before the pushes: one that throws is not pushed again.
      const from = next;
      next = end;
      for (let i = from; i < end; i++) if (deps.handler.push(queue[i]!)) pushed++;
    } catch (error) {
      deps.onError(error);
    }
    if (next < queue.length) turn = deps.scheduler.schedule(step, 0);
  }

  const subscription = deps.changes$.subscribe(() => {
    queue = [...deps.owners.held()];
    next = 0;
    turn ??= deps.scheduler.schedule(step, 0);
  });

  return {
    get pushed() {
      return pushed;
    },
    get busy() {
      return turn !== undefined;
    },
    stop() {
      subscription.unsubscribe();
      turn?.unsubscribe();
      turn = undefined;
      queue = [];
      next = 0;
    },
  };
}
