// What a config change would do, shared by POST /api/configs/preview and the config editor's live
// check: the change folded into the configs in force over the merged fleet (this replica and, with
// persistence, the store). Reads only; the caller has checked the request (configRequest.ts).

import type { ConfigRevisionData } from '../../events/configData.ts';
import type { AgentState } from '../../projections/agent/agentState.ts';
import { matchAll } from '../../projections/filter/fleetFilter.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import type { DesiredConfigs } from '../../projections/remoteConfig/desiredConfigProjection.ts';
import { bodyHashOf } from '../../projections/remoteConfig/desiredConfig.ts';
import { previewConfig, type PreviewRow } from '../../projections/remoteConfig/previewConfig.ts';
import { defaultContentType } from '../../projections/remoteConfig/validateConfig.ts';
import type { PreviewRequest } from '../api/configRequest.ts';
import type { FleetReader } from '../read/fleetReader.ts';

export interface PreviewDeps {
  readonly configs: Pick<ConfigCatalog, 'get'>;
  readonly desired: Pick<DesiredConfigs, 'desiredFor' | 'current'>;
  readonly reader: FleetReader;
}

export interface ConfigPreview {
  /** The config as previewed (its name, or `(preview)` for a config not named yet). */
  readonly config: ConfigRevisionData;
  /** Agents the changed config would target. */
  readonly targeted: number;
  /** Agents whose desired hash would change. */
  readonly changed: number;
  /** Agents whose desired config after the change names a component type they lack (not sent). */
  readonly incompatible: number;
  /** Whether the hashes reflect a body (given, or the config's own). */
  readonly bodyKnown: boolean;
  /** Whether the store's agents are missing from the counts. */
  readonly partial: boolean;
  /** Every agent targeted or changed, in the fleet's order. */
  readonly rows: readonly PreviewRow[];
}

export async function previewChange(deps: PreviewDeps, request: PreviewRequest): Promise<ConfigPreview> {
  const { name, selector, body, contentType, enabled } = request;
  const existing = name === undefined ? undefined : await deps.configs.get(name);
  const base = existing?.current ?? existing?.latest;
  const text = body ?? base?.body ?? '';
  const config: ConfigRevisionData = {
    name: name ?? '(preview)',
    revision: (existing?.latest.revision ?? 0) + 1,
    selector,
    body: text,
    contentType: contentType ?? base?.contentType ?? defaultContentType,
    enabled,
    bodyHash: bodyHashOf(text),
  };
  const fleet = await deps.reader.listAll(matchAll, 'api');
  const desiredFor = (agent: AgentState) => deps.desired.desiredFor(agent);
  const rows = previewConfig(deps.desired.current(), config, fleet.agents, desiredFor);
  return {
    config,
    targeted: rows.filter((r) => r.targeted).length,
    changed: rows.filter((r) => r.now?.hash !== r.after?.hash).length,
    incompatible: rows.filter((r) => r.missingAfter !== undefined).length,
    bodyKnown: body !== undefined || base !== undefined,
    partial: fleet.partial,
    rows,
  };
}
