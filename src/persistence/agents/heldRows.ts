// Which of this replica's agents the database already names as held by it (agents.held_by,
// migration 00020), so a fleet list leaves their stored copies out with an index and sends only the
// others' ids (pgStoredLists.ts). An agent is confirmed when this replica's write of its row
// committed while the agent was connected here, and stays confirmed until it connects again,
// disconnects or is evicted (the bus, in order with the registry). Another replica overwrites
// the row only with a later last_seen, that is after the agent connected there, which closes or
// outlives its socket here: the agent is then disconnected here and its id is sent again.
// The one case left is one id connected to two replicas at once (two agents claiming one
// instance_uid): a count then counts it on both sides until one socket goes (docs/persistence.md).
//
// The registry's members are the agents connected here since they last were evicted (an agent
// joins it with AgentConnected and leaves it with AgentEvicted, evolveAgent.ts), so the ids a list
// must send, the members that are not confirmed, are kept here as the bus goes: a list reads them
// without walking the fleet (at 100,000 held agents that walk was a fifth of a list's time).

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
  /** How many agents the registry holds (connected here and not evicted since). */
  readonly members: number;
  /** The members not confirmed, ascending: the same array until one is confirmed, joins or leaves. */
  unconfirmed(): readonly InstanceUid[];
  stop(): void;
}

export function createHeldRows(name: string, events$: Observable<FleetEvent>): HeldRows {
  // Per member: connected here (unconfirmed), confirmed, or held disconnected.
  const members = new Map<InstanceUid, 'connected' | 'confirmed' | 'away'>();
  const pending = new Set<InstanceUid>();
  let sorted: InstanceUid[] | undefined;
  const unconfirm = (uid: InstanceUid) => {
    if (pending.has(uid)) return;
    pending.add(uid);
    sorted = undefined;
  };
  const subscription = events$.subscribe((event) => {
    if (event.type === 'AgentConnected') {
      members.set(event.data.uid, 'connected');
      unconfirm(event.data.uid);
    } else if (event.type === 'AgentDisconnected') {
      if (!members.has(event.data.uid)) return;
      members.set(event.data.uid, 'away');
      unconfirm(event.data.uid);
    } else if (event.type === 'AgentEvicted') {
      members.delete(event.data.uid);
      if (pending.delete(event.data.uid)) sorted = undefined;
    }
  });
  return {
    name,
    confirm(written) {
      for (const uid of written as Iterable<InstanceUid>)
        if (members.get(uid) === 'connected') {
          members.set(uid, 'confirmed');
          pending.delete(uid);
          sorted = undefined;
        }
    },
    confirmed: (uid) => members.get(uid) === 'confirmed',
    get members() {
      return members.size;
    },
    unconfirmed: () => (sorted ??= [...pending].sort()),
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
