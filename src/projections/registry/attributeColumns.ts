// The registry's attribute columns (attributeColumn.ts), kept up to date event by event instead of
// rebuilt from every agent record after each change. Under churn (descriptions changing, agents
// registering and leaving every second) a rebuild per query walked 100,000 records through four
// dependent pointers each, a cache miss apiece: over 100 ms. Here each registry slot carries the id
// of its value in every cached column; a new description updates the slot and its entry in the
// current column in place, and a membership change re-reads nothing of the agents that stayed: the
// new column is copied from the previous one along the order's rebuild step (uidOrder.ts), and only
// the newcomers' slots are read. Pure data structure, no IO.

import { attributeOf, type AgentState } from '../agent/agentState.ts';
import type { AttributeColumn } from './attributeColumn.ts';
import { positionOf, type OrderStep } from './uidOrder.ts';

/** What the registry holds per agent: the state and its column ids. */
export interface ColumnSlot {
  state: AgentState;
  /** Value id per column number (see Column.n). */
  readonly ids: number[];
}

interface Column {
  readonly key: string;
  /** Index into every slot's `ids`. */
  readonly n: number;
  readonly values: (string | undefined)[];
  readonly idOf: Map<string, number>;
  /** The column aligned with `snapshot`, handed out until the snapshot changes. */
  view: { ids: Uint32Array; values: readonly (string | undefined)[] } | undefined;
  snapshot: readonly ColumnSlot[] | undefined;
}

export interface AttributeColumns {
  /**
   * The column of `key` aligned with `snapshot`, the registry's current ordered slots; `step` says
   * how `snapshot` was made from the one before (uidOrder.ts).
   */
  column(key: string, snapshot: readonly ColumnSlot[], step?: OrderStep<ColumnSlot>): AttributeColumn;
  /** A slot joined the registry (not yet in any snapshot). */
  added(slot: ColumnSlot): void;
  /** A slot's description changed. */
  described(slot: ColumnSlot): void;
}

export function createAttributeColumns(maxColumns = 32): AttributeColumns {
  const columns = new Map<string, Column>();
  let nextN = 0;

  function idFor(c: Column, agent: AgentState): number {
    const value = attributeOf(agent, c.key);
    if (value === undefined) return 0;
    let id = c.idOf.get(value);
    if (id === undefined) {
      id = c.values.length;
      c.values.push(value);
      c.idOf.set(value, id);
    }
    return id;
  }

  function create(key: string, snapshot: readonly ColumnSlot[]): Column {
    if (columns.size >= maxColumns) {
      columns.clear();
      nextN = 0;
    }
    const c: Column = {
      key,
      n: nextN++,
      values: [undefined],
      idOf: new Map(),
      view: undefined,
      snapshot: undefined,
    };
    columns.set(key, c);
    for (const slot of snapshot) slot.ids[c.n] = idFor(c, slot.state);
    return c;
  }

  return {
    column(key, snapshot, step) {
      let c = columns.get(key);
      // Values of agents long gone pile up under churn: start the column afresh now and then.
      if (c !== undefined && c.values.length > 2 * snapshot.length + 1024) {
        columns.delete(key);
        c = undefined;
      }
      c ??= create(key, snapshot);
      if (c.view === undefined || c.snapshot !== snapshot) {
        const ids = new Uint32Array(snapshot.length);
        if (c.view !== undefined && step !== undefined && step.prev === c.snapshot) {
          const previous = c.view.ids;
          const { from } = step;
          for (let i = 0; i < snapshot.length; i++) {
            const at = from[i]!;
            ids[i] = at >= 0 ? previous[at]! : snapshot[i]!.ids[c.n]!;
          }
        } else for (let i = 0; i < snapshot.length; i++) ids[i] = snapshot[i]!.ids[c.n]!;
        c.view = { ids, values: c.values };
        c.snapshot = snapshot;
      }
      return c.view;
    },
    added(slot) {
      for (const c of columns.values()) slot.ids[c.n] = idFor(c, slot.state);
    },
    described(slot) {
      let searched: readonly ColumnSlot[] | undefined;
      let at = -1;
      for (const c of columns.values()) {
        const id = idFor(c, slot.state);
        slot.ids[c.n] = id;
        if (c.view === undefined || c.snapshot === undefined) continue;
        if (c.snapshot !== searched) {
          searched = c.snapshot;
          at = positionOf(searched, slot);
        }
        if (at >= 0) c.view.ids[at] = id;
      }
    },
  };
}
