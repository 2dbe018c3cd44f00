// Helpers for the pprof conversion specs.

import type { Profile } from 'pprof-format';

export const frame = (functionName: string, lineNumber: number, url = 'file:///app/main.js') => ({
  functionName,
  scriptId: '7',
  url,
  lineNumber,
  columnNumber: 0,
});

/** Stacks of a decoded profile as "leaf<caller<...": value pairs, so specs read like flame graphs. */
export function stacks(p: Profile): Record<string, number[]> {
  const s = p.stringTable.strings;
  const fnName = new Map(p.function.map((f) => [Number(f.id), s[Number(f.name)]]));
  const locName = new Map(p.location.map((l) => [Number(l.id), fnName.get(Number(l.line[0]?.functionId))]));
  return Object.fromEntries(
    p.sample.map((x) => [x.locationId.map((id) => locName.get(Number(id))).join('<'), x.value.map(Number)]),
  );
}
