// Commands waiting for agents held by this replica (a restart job's claimed targets). The job side
// queues a command once its claim in the database went through, so no other replica sends it; the
// handler takes it for the agent's next reply, or pushes it at once over the agent's WebSocket.
// Taking removes it: a command goes out once.

import type { InstanceUid } from '../../events/ids.ts';

export type AgentCommand = 'restart';

export interface CommandQueue {
  queue(uid: InstanceUid, command: AgentCommand): void;
  /** The command waiting for the agent, removed from the queue; undefined when none waits. */
  take(uid: InstanceUid): AgentCommand | undefined;
  /** Forgets a command that must not go out any more (the job was cancelled). */
  drop(uid: InstanceUid): void;
  readonly size: number;
}

export function createCommandQueue(): CommandQueue {
  const waiting = new Map<InstanceUid, AgentCommand>();
  return {
    queue: (uid, command) => void waiting.set(uid, command),
    take(uid) {
      // Asked on every message; nearly always nothing waits.
      if (waiting.size === 0) return undefined;
      const command = waiting.get(uid);
      if (command !== undefined) waiting.delete(uid);
      return command;
    },
    drop: (uid) => void waiting.delete(uid),
    get size() {
      return waiting.size;
    },
  };
}
