// Which of this replica's agents the database already names as held by it (agents.held_by,
// migration 00020), so a fleet list leaves their stored copies out with an index and sends only the
// others' ids (pgStoredLists.ts). An agent is confirmed when this replica's write of its row
// committed while the agent was connected here, and stays confirmed until it connects again,
// disconnects or is evicted (the bus, in order with the registry). Another replica overwrites
// the row only with a later last_seen, that is after the agent connected there, which closes or
// outlives its socket here: the agent is then disconnected here and its id is sent again.
// The one case left is one id connected to two replicas at once (two agents claiming one
// instance_uid): a count then counts it on both sides until one socket goes (docs/persistence.md).

import type { Observable } from 'rxjs';
import type { FleetEvent } from '../../events/fleetEvent.ts';
import type { InstanceUid } from '../../events/ids.ts';
import type { AgentWriter } from './agentWriter.ts';

export interface HeldRows {
  /** This replica's name in agents.held_by. */
  readonly name: string;
  /** After a commit: the uids whose rows this replica wrote (so they name it now). */
  confirm(written: Iterable<string>): void;
  /** True when the stored row names this replica and the agent is connected here since that write. */
  confirmed(uid: InstanceUid): boolean;
  stop(): void;
}

export function createHeldRows(name: string, events$: Observable<FleetEvent>): HeldRows {
  // uid → confirmed; present while the agent is connected here.
  const connected = new Map<InstanceUid, boolean>();
  const subscription = events$.subscribe((event) => {
    if (event.type === 'AgentConnected') connected.set(event.data.uid, false);
    else if (event.type === 'AgentDisconnected' || event.type === 'AgentEvicted')
      connected.delete(event.data.uid);
  });
  return {
    name,
    confirm(written) {
      for (const uid of written)
        if (connected.has(uid as InstanceUid)) connected.set(uid as InstanceUid, true);
    },
    confirmed: (uid) => connected.get(uid) === true,
    stop: () => subscription.unsubscribe(),
  };
}

/** `writer` whose committed agent rows (they name `held`'s replica) confirm those agents. */
export function confirmingHeld(writer: AgentWriter, held: HeldRows): AgentWriter {
  return {
    ...writer,
    saveAgents: async (agents, alive) => {
      const result = await writer.saveAgents(agents, alive);
      held.confirm(result.applied);
      return result;
    },
  };
}
