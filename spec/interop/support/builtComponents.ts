// What the Collector distribution of tools/peers/manifest.yaml.in can run, and the hash its opamp
// extension reports for it: sha256 over `receiver:TYPE=MODULE VERSION;…processor:…exporter:…
// extension:…connector:…`, each kind's types sorted (generateAvailableComponentsHash in
// opampextension v0.149.0). The supervisor forwards its Collector's list as it is.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { peerVersions } from './peers.ts';

const core = 'go.opentelemetry.io/collector';
const contrib = 'github.com/open-telemetry/opentelemetry-collector-contrib';

/** Kind (as in AvailableComponents) → type → Go module. */
const modules: Record<string, Record<string, string>> = {
  receivers: { nop: `${core}/receiver/nopreceiver`, otlp: `${core}/receiver/otlpreceiver` },
  processors: {
    batch: `${core}/processor/batchprocessor`,
    memory_limiter: `${core}/processor/memorylimiterprocessor`,
  },
  exporters: { debug: `${core}/exporter/debugexporter`, nop: `${core}/exporter/nopexporter` },
  extensions: { opamp: `${contrib}/extension/opampextension` },
  connectors: {},
};

/** Kind → sorted types, as `GET /api/agents/{id}` shows them. */
export const builtComponents: Record<string, string[]> = Object.fromEntries(
  Object.entries(modules).map(([kind, types]) => [kind, Object.keys(types).sort()]),
);

/** The modules above that the manifest does not build (none when this file matches it). */
export function modulesMissingFromManifest(): string[] {
  const manifest = readFileSync(join(import.meta.dirname, '../../../tools/peers/manifest.yaml.in'), 'utf8');
  return Object.values(modules)
    .flatMap((types) => Object.values(types))
    .filter((module) => !manifest.includes(`gomod: ${module} `));
}

/** The hash the Collector reports for its components (hex). */
export function builtComponentsHash(): string {
  const v = peerVersions();
  const version = (module: string) =>
    module.startsWith(contrib) ? v.OTELCOL_CONTRIB_VERSION : v.OTELCOL_CORE_VERSION;
  const order = ['receivers', 'processors', 'exporters', 'extensions', 'connectors'];
  const text = order
    .map((kind) => {
      const types = modules[kind] ?? {};
      const entries = Object.keys(types)
        .sort()
        .map((type) => `${type}=${types[type]} ${version(types[type] ?? '')};`);
      return `${kind.slice(0, -1)}:${entries.join('')}`;
    })
    .join('');
  return createHash('sha256').update(text).digest('hex');
}
