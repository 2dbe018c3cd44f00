// Which component types a Collector config names, and which of them an agent lacks (issue 24:
// "incompatible configs are not sent"). Pure.
//
// A Collector config declares its components in five sections, `receivers`, `processors`,
// `exporters`, `extensions` and `connectors`, each a map keyed by component id: `type` or
// `type/name`. Pipelines (and `service.extensions`) only reference ids that must be declared there,
// so the sections are all that is read. The agent's available components (AgentToServer
// .available_components, as the Collector's opamp extension builds them) use the same kind names
// and type names. A config is judged only on the kinds the agent reported: a kind it did not report
// is unknown, not empty.
//
// Hostile bodies: a body over maxConfigBodyBytes, a body that does not parse, or one whose content
// type is neither YAML nor JSON names nothing (it is sent as before, the agent judges it). Only the
// top two levels of the document are read, at most maxIdsPerKind ids per kind, so YAML aliases and
// deep nesting cost nothing beyond parsing.

import { load as loadYaml } from 'js-yaml';
import type { AvailableComponents } from '../../events/agentData.ts';
import { isWhole } from '../agent/availableComponents.ts';
import type { DesiredConfig } from './desiredConfig.ts';
import { isJson, isYaml, maxConfigBodyBytes } from './configBody.ts';

/** Component kind (`receivers`) → sorted, distinct type names (`otlp`). Kinds with none are absent. */
export type ComponentTypes = Readonly<Record<string, readonly string[]>>;

export const componentKinds = ['receivers', 'processors', 'exporters', 'extensions', 'connectors'] as const;
const maxIdsPerKind = 4096;
/** component.Type's pattern in the Collector: anything else (a `${env:…}` key) is not judged. */
const typePattern = /^[a-zA-Z][0-9a-zA-Z_]{0,62}$/;
const utf8 = new TextEncoder();

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parsed(body: string, contentType: string): unknown {
  // UTF-8 bytes are at least the UTF-16 length: a cheap bound before the exact one.
  if (body.length > maxConfigBodyBytes || utf8.encode(body).length > maxConfigBodyBytes) return undefined;
  try {
    if (isYaml(contentType)) return loadYaml(body);
    if (isJson(contentType)) return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
  return undefined;
}

/** The component types one config body names, per kind. */
export function componentTypesOf(body: string, contentType: string): ComponentTypes {
  const doc = parsed(body, contentType);
  if (!isMap(doc)) return {};
  const named: Record<string, readonly string[]> = {};
  for (const kind of componentKinds) {
    const section = Object.hasOwn(doc, kind) ? doc[kind] : undefined;
    if (!isMap(section)) continue;
    const types = new Set<string>();
    for (const id of Object.keys(section).slice(0, maxIdsPerKind)) {
      const type = id.split('/', 1)[0] ?? '';
      if (typePattern.test(type)) types.add(type);
    }
    if (types.size > 0) named[kind] = [...types].sort();
  }
  return named;
}

/** The union of several ComponentTypes (the entries of one config map). */
export function unionOf(all: readonly ComponentTypes[]): ComponentTypes {
  const union: Record<string, readonly string[]> = {};
  for (const kind of componentKinds) {
    const types = new Set(all.flatMap((c) => c[kind] ?? []));
    if (types.size > 0) union[kind] = [...types].sort();
  }
  return union;
}

/** Binary search: available type lists are sorted (AvailableComponents' contract). */
function holds(sorted: readonly string[], type: string): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid]!;
    if (at === type) return true;
    if (at < type) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The named types the agent lacks, per kind, among the kinds it reported; {} when none. */
export function missingTypes(named: ComponentTypes, available: ComponentTypes): ComponentTypes {
  const missing: Record<string, readonly string[]> = {};
  for (const [kind, types] of Object.entries(named)) {
    const have = Object.hasOwn(available, kind) ? available[kind] : undefined;
    if (have === undefined) continue;
    const lacking = types.filter((t) => !holds(have, t));
    if (lacking.length > 0) missing[kind] = lacking;
  }
  return missing;
}

// A memo of a pure function, keyed by the interned DesiredConfig (agents that receive the same
// revisions share one object): each config map is parsed once, however many agents are judged.
const namedByDesired = new WeakMap<DesiredConfig, ComponentTypes>();

/** The component types a desired config map names, over all its entries. */
export function componentTypesOfDesired(desired: DesiredConfig): ComponentTypes {
  let named = namedByDesired.get(desired);
  if (named === undefined) {
    named = unionOf(desired.entries.map((e) => componentTypesOf(e.body, e.contentType)));
    namedByDesired.set(desired, named);
  }
  return named;
}

/**
 * What the agent lacks to run the desired config: undefined when it lacks nothing, or when it has
 * not reported its available components (it is offered the config as before).
 */
export function incompatibility(
  available: AvailableComponents | null,
  desired: DesiredConfig,
): ComponentTypes | undefined {
  if (available === null || !isWhole(available)) return undefined;
  const missing = missingTypes(componentTypesOfDesired(desired), available.components);
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** `exporters/kafka, receivers/foo`: for reasons and logs. */
export const describeMissing = (missing: ComponentTypes): string =>
  Object.entries(missing)
    .flatMap(([kind, types]) => types.map((t) => `${kind}/${t}`))
    .join(', ');
