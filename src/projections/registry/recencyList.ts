// The registry's agents in the order of their last message, oldest first: a doubly linked list
// threaded through the registry's slots, so moving an agent to the end on each message costs a few
// pointer writes and no hashing. The liveness sweep walks it from the oldest and stops at the first
// agent still within both thresholds, instead of reading every agent every second. Pure data
// structure, no IO.

export interface RecencyNode {
  older: RecencyNode | undefined;
  newer: RecencyNode | undefined;
  listed: boolean;
}

export interface RecencyList<T extends RecencyNode> {
  /** Moves `node` to the newest end (adds it when not listed). */
  touch(node: T): void;
  remove(node: T): void;
  /** Oldest first; the list must not change during the walk. */
  oldestFirst(): IterableIterator<T>;
}

export function createRecencyList<T extends RecencyNode>(): RecencyList<T> {
  let oldest: RecencyNode | undefined;
  let newest: RecencyNode | undefined;

  function remove(node: RecencyNode): void {
    if (!node.listed) return;
    if (node.older) node.older.newer = node.newer;
    else oldest = node.newer;
    if (node.newer) node.newer.older = node.older;
    else newest = node.older;
    node.older = node.newer = undefined;
    node.listed = false;
  }

  return {
    touch(node) {
      if (node.listed && newest === node) return;
      remove(node);
      node.older = newest;
      if (newest) newest.newer = node;
      else oldest = node;
      newest = node;
      node.listed = true;
    },
    remove,
    *oldestFirst() {
      for (let node = oldest; node !== undefined; node = node.newer) yield node as T;
    },
  };
}
