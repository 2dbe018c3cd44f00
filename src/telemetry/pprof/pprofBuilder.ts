// Shared pieces of the V8 → pprof conversion: one string table, functions deduplicated by call frame,
// one location per profile node. Pure (no inspector, no IO).

import { Function as PprofFunction, Line, Location, StringTable } from 'pprof-format';
import type { Runtime } from 'node:inspector';

export interface PprofTables {
  readonly stringTable: StringTable;
  readonly functions: PprofFunction[];
  readonly locations: Location[];
  /** The location of a profile node; created on first use. `nodeId` must be unique in the profile. */
  locationOf(nodeId: number, frame: Runtime.CallFrame): number;
}

/** A frame's display name: V8 leaves anonymous functions and some builtins unnamed. */
const nameOf = (frame: Runtime.CallFrame): string => frame.functionName || '(anonymous)';
const fileOf = (frame: Runtime.CallFrame): string =>
  frame.url || (frame.scriptId === '0' ? '' : `script:${frame.scriptId}`);

export function createPprofTables(): PprofTables {
  const stringTable = new StringTable();
  const functions: PprofFunction[] = [];
  const locations: Location[] = [];
  const functionIds = new Map<string, number>();
  const locationIds = new Map<number, number>();

  function functionOf(frame: Runtime.CallFrame): number {
    const key = `${frame.functionName}\0${frame.url}\0${frame.scriptId}\0${frame.lineNumber}\0${frame.columnNumber}`;
    let id = functionIds.get(key);
    if (id === undefined) {
      id = functions.length + 1;
      functionIds.set(key, id);
      const name = stringTable.dedup(nameOf(frame));
      functions.push(
        new PprofFunction({
          id,
          name,
          systemName: name,
          filename: stringTable.dedup(fileOf(frame)),
          // V8 lines are 0-based; pprof lines are 1-based. Native frames have -1.
          startLine: Math.max(0, frame.lineNumber + 1),
        }),
      );
    }
    return id;
  }

  function locationOf(nodeId: number, frame: Runtime.CallFrame): number {
    let id = locationIds.get(nodeId);
    if (id === undefined) {
      id = locations.length + 1;
      locationIds.set(nodeId, id);
      const line = new Line({ functionId: functionOf(frame), line: Math.max(0, frame.lineNumber + 1) });
      locations.push(new Location({ id, line: [line] }));
    }
    return id;
  }

  return { stringTable, functions, locations, locationOf };
}
