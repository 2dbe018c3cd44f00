// Merges two streams that are each in ascending instance_uid order into one ordered stream. The
// caller guarantees the streams hold different agents (store entries the registry also holds are
// dropped before merging: the local entry wins, SPEC durability rule 4); a uid repeated inside the
// second stream is yielded once.

import type { AgentState } from '../../projections/agent/agentState.ts';

export function* mergeByUid(
  first: Iterable<AgentState>,
  second: readonly AgentState[],
): Generator<AgentState> {
  let j = 0;
  let lastSecond: string | undefined;
  const nextSecond = (): AgentState | undefined => {
    while (j < second.length && second[j]?.uid === lastSecond) j++;
    return second[j];
  };
  for (const a of first) {
    for (let b = nextSecond(); b !== undefined && b.uid < a.uid; b = nextSecond()) {
      lastSecond = b.uid;
      j++;
      yield b;
    }
    yield a;
  }
  for (let b = nextSecond(); b !== undefined; b = nextSecond()) {
    lastSecond = b.uid;
    j++;
    yield b;
  }
}
