// Which revision of a rollout's config is in force for whom, in words (docs/jobs.md "Which revision
// is in force"): the job page, the job list and the API say it, so a `failed` or `paused` rollout is
// never read as having changed (or not changed) every agent. Derived from the job's status, its
// from_revision and its target counts, by the same rules the pins follow (jobAgentsSql.ts). Pure.

import { rollsOut } from '../../projections/jobs/jobActions.ts';
import type { JobStatus } from '../../projections/jobs/jobLifecycle.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';

const agents = (n: number): string => (n === 1 ? '1 agent' : `${n} agents`);

/** undefined for jobs that roll nothing out. */
export function revisionInForce(job: Job): string | undefined {
  if (!rollsOut(job.action)) return undefined;
  const config = String(job.action_config.config);
  const revision = `Revision ${String(job.action_config.revision)}`;
  const from = job.from_revision ?? null;
  const rest = from === null ? `no revision of ${config} is current for the rest` : `revision ${from} stays current for the rest`;
  const counts = job.target_counts ?? {};
  const reached = (counts.in_flight ?? 0) + (counts.succeeded ?? 0) + (counts.failed ?? 0);
  const failed = counts.failed ?? 0;
  const toReached =
    reached === 0
      ? `${revision} is not in force for any agent yet`
      : `${revision} is in force for the ${agents(reached)} this rollout reached`;
  const sentences: Record<JobStatus, () => string> = {
    planned: () => `${revision} is not in force for any agent: the rollout is not armed.`,
    armed: () => `${revision} is not in force for any agent yet; ${from === null ? rest : `revision ${from} stays current`}.`,
    running: () => `${toReached}; ${rest}.`,
    paused: () => `${toReached}; ${rest}.`,
    awaiting_promotion: () =>
      `${toReached} (${failed} failed); ${rest} until the rollout is promoted or rolled back.`,
    succeeded: () =>
      failed === 0
        ? `${revision} became current for every agent when every target applied it.`
        : `${revision} became current for every agent when the rollout was promoted, although ${agents(failed)} failed it.`,
    failed: () =>
      `${revision} is in force for no agent: every agent this rollout reached was returned to ${from === null ? 'no revision' : `revision ${from}`}.`,
    cancelled: () =>
      reached === 0
        ? `${revision} is not in force for any agent: the rollout was cancelled before reaching one.`
        : `${revision} stays in force for the ${agents(reached)} this rollout reached until ${config}'s current revision next changes; ${rest}.`,
  };
  return sentences[job.status]();
}
