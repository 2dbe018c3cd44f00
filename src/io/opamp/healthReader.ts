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
  const last = r.tables.lastHealth[depth];
  const lastNames = r.tables.lastHealthNames[depth] ?? noNames;
  let healthy = false;
  let startTimeNanos = 0n;
  let lastError = '';
  let status = '';
  let statusTimeNanos = 0n;
  let components = noComponents as Record<string, ComponentHealth>;
  /** The components read so far are the first `count` of `last`'s (none is built while they are). */
  let sameSoFar = last !== undefined;
  let count = 0;
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
        const name = checkMapKey(key);
        if (sameSoFar) {
          if (count < lastNames.length && lastNames[count] === name && last!.components[name] === child) {
            count++;
            break;
          }
          sameSoFar = false;
          components = firstOf(last!.components, lastNames, count);
        }
        if (components === noComponents) components = {};
        components[name] = child;
        break;
      }
      default:
        throw giveUp;
    }
  }
  r.leave(outer);
  if (sameSoFar) {
    if (count === lastNames.length) {
      if (
        last!.healthy === healthy &&
        last!.startTimeNanos === startTimeNanos &&
        last!.lastError === lastError &&
        last!.status === status &&
        last!.statusTimeNanos === statusTimeNanos
      )
        return last!;
      components = last!.components;
    } else components = firstOf(last!.components, lastNames, count);
  }
  const health = { healthy, startTimeNanos, lastError, status, statusTimeNanos, components };
  r.tables.lastHealth[depth] = health;
  r.tables.lastHealthNames[depth] =
    components === last?.components
      ? lastNames
      : components === noComponents
        ? noNames
        : Object.keys(components);
  return health;
}

const noNames: readonly string[] = Object.freeze([]);

/** A map of the first `count` components of a node read before (noComponents when none). */
function firstOf(
  from: Readonly<Record<string, ComponentHealth>>,
  names: readonly string[],
  count: number,
): Record<string, ComponentHealth> {
  if (count === 0) return noComponents;
  const components: Record<string, ComponentHealth> = {};
  for (let i = 0; i < count; i++) components[names[i]!] = from[names[i]!]!;
  return components;
}
