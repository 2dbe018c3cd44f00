// A job's targets now (docs/jobs.md "Targets"): its filter (a matcher list or the agent list's query
// string, filterText.ts) over the merged fleet, then resolveTargets for the action. Used when a job
// is armed, and by the stepper for live jobs, which the composition root hands it to.

import type { AgentState } from '../../projections/agent/agentState.ts';
import { parseFleetQuery } from '../../projections/filter/fleetFilter.ts';
import { filterParams } from '../../projections/filter/filterText.ts';
import type { ActionSettings } from '../../projections/jobs/jobActions.ts';
import { resolveTargets, type TargetCandidate } from '../../projections/jobs/resolveTargets.ts';
import type { ConfigCatalog } from '../../projections/remoteConfig/configCatalog.ts';
import { configStateOf } from '../../projections/remoteConfig/configState.ts';
import type { DesiredConfig } from '../../projections/remoteConfig/desiredConfig.ts';
import type { FleetReader } from './fleetReader.ts';

export class TargetError extends Error {}

export interface JobTargetDeps {
  readonly reader: FleetReader;
  readonly desiredFor: (agent: AgentState) => DesiredConfig | undefined;
  readonly configs: Pick<ConfigCatalog, 'revision'>;
}

/** Rejects with a TargetError (a 400) when the filter or the rolled-out revision is not usable. */
export function createJobTargetResolver(deps: JobTargetDeps) {
  return async (job: { readonly filter: string }, settings: ActionSettings): Promise<TargetCandidate[]> => {
    const parsed = parseFleetQuery(filterParams(job.filter), {
      configStateOf: (agent) => configStateOf(agent, deps.desiredFor(agent)),
    });
    if (!parsed.ok) throw new TargetError(`the job's filter does not parse: ${parsed.error}`);
    let selector: string | undefined;
    if (settings.action === 'config_rollout') {
      const revision = await deps.configs.revision(settings.config, settings.revision);
      if (revision === undefined)
        throw new TargetError(`config ${settings.config} has no revision ${settings.revision}`);
      selector = revision.selector;
    }
    const fleet = await deps.reader.listAll(parsed.filter, 'api');
    return resolveTargets(fleet.agents, settings, selector);
  };
}

export type JobTargetResolver = ReturnType<typeof createJobTargetResolver>;
