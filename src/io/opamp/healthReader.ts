// ComponentHealth (field 5 of AgentToServer) for the fast decoder, read straight into the domain's
// ComponentHealth: a health tree is the largest part of a collector's report (a node per pipeline
// and per component), and building protobuf-shaped objects first only to translate them (toHealth in
// wireToData.ts, which protobufjs's output still goes through) doubled its cost. The result is what
// toHealth makes of protobufjs's decoding of the same bytes; spec/io/opamp/agentToServerReader.spec.ts
// holds the two to that. Whatever this reader does not read exactly so makes it give up.

import type { ComponentHealth } from '../../events/agentData.ts';
import { maxDepth } from './anyValueReader.ts';
import { checkMapKey, giveUp, type Reader } from './protoReader.ts';

/** Shared by every health without components (most leaves of a health tree). */
export const noComponents: Readonly<Record<string, ComponentHealth>> = Object.freeze({});

/**
 * Reads a ComponentHealth sub-message whole, starting at its length. Timestamps repeat
 * (fixed64Repeated): one BigInt per distinct value in a row, kept in the reader's tables. So do whole
 * nodes, within a tree (a pipeline's healthy components) and across agents (a fleet of one
 * collector build reports the same tree): a node equal to the last one read at its depth, its
 * children being the very same nodes, is that node. Agents' records then share one copy of a
 * health they report alike (as they share config bodies, sharedText.ts) instead of a tree of
 * objects each, which the garbage collector would copy as records age. Health nodes are data, never
 * changed once read.
 */
export function readHealth(r: Reader, depth: number): ComponentHealth {
  if (depth > maxDepth) throw giveUp;
  const outer = r.enter();
  let healthy = false;
  let startTimeNanos = 0n;
  let lastError = '';
  let status = '';
  let statusTimeNanos = 0n;
  let components = noComponents as Record<string, ComponentHealth>;
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag) {
      case 0x08:
        healthy = r.bool();
        break;
      case 0x11:
        startTimeNanos = r.fixed64Repeated(r.tables.startTime);
        break;
      case 0x1a:
        lastError = r.string();
        break;
      case 0x22:
        status = r.string();
        break;
      case 0x29:
        statusTimeNanos = r.fixed64Repeated(r.tables.statusTime);
        break;
      case 0x32: {
        // map<string, ComponentHealth> entry {1: key, 2: value}; both must be there.
        const entryOuter = r.enter();
        let key: string | undefined;
        let child: ComponentHealth | undefined;
        while (r.pos < r.end) {
          const entryTag = r.uint32();
          if (entryTag === 0x0a) key = r.string();
          else if (entryTag === 0x12 && child === undefined) child = readHealth(r, depth + 1);
          else throw giveUp;
        }
        r.leave(entryOuter);
        if (child === undefined) throw giveUp;
        if (components === noComponents) components = {};
        components[checkMapKey(key)] = child;
        break;
      }
      default:
        throw giveUp;
    }
  }
  r.leave(outer);
  const last = r.tables.lastHealth[depth];
  if (
    last !== undefined &&
    last.healthy === healthy &&
    last.startTimeNanos === startTimeNanos &&
    last.lastError === lastError &&
    last.status === status &&
    last.statusTimeNanos === statusTimeNanos &&
    sameComponents(last.components, components)
  )
    return last;
  const health = { healthy, startTimeNanos, lastError, status, statusTimeNanos, components };
  r.tables.lastHealth[depth] = health;
  return health;
}

/** The same names in the same order, each holding the very same node (children are shared first). */
function sameComponents(
  a: Readonly<Record<string, ComponentHealth>>,
  b: Readonly<Record<string, ComponentHealth>>,
): boolean {
  if (a === b) return true;
  if (a === noComponents || b === noComponents) return false;
  const names = Object.keys(a);
  const others = Object.keys(b);
  if (names.length !== others.length) return false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    if (others[i] !== name || a[name] !== b[name]) return false;
  }
  return true;
}
