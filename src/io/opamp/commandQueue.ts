// Commands waiting for agents held by this replica (a restart job's claimed targets). The job side
// queues a command once its claim in the database went through, so no other replica sends it; the
// handler sends it in the agent's next reply, or pushes it at once over the agent's WebSocket.
// Contract: a sender peeks, decides whether the command can go out (the agent accepts it, is
// connected), and takes it only when the ServerToAgent carrying it is sent. A command that cannot be
// sent is never taken, so nothing has to be put back and nothing is lost between the two. It goes
// out once: taking removes it.

import type { InstanceUid } from '../../events/ids.ts';

export type AgentCommand = 'restart';

export interface CommandQueue {
  queue(uid: InstanceUid, command: AgentCommand): void;
  /** The command waiting for the agent, left in the queue; undefined when none waits. */
  peek(uid: InstanceUid): AgentCommand | undefined;
  /** Removes the agent's command: the reply or push carrying it is going out. */
  take(uid: InstanceUid): void;
  /** Forgets a command that must not go out any more (the job was cancelled). */
  drop(uid: InstanceUid): void;
  readonly size: number;
}

export function createCommandQueue(): CommandQueue {
  const waiting = new Map<InstanceUid, AgentCommand>();
  return {
    queue: (uid, command) => void waiting.set(uid, command),
    // Asked on every message; nearly always nothing waits.
    peek: (uid) => (waiting.size === 0 ? undefined : waiting.get(uid)),
    take: (uid) => void waiting.delete(uid),
    drop: (uid) => void waiting.delete(uid),
    get size() {
      return waiting.size;
    },
  };
}
