// Schemas of the jobs API (src/web/views/jobView.ts, src/projections/jobs/jobStore.ts, docs/jobs.md).

import { targetStates } from '../../../projections/jobs/jobStore.ts';
import { jobStatuses, operatorCommands } from '../../../projections/jobs/jobLifecycle.ts';
import { arrayOf, int, nullable, object, oneOfValues, ref, str, time, type Schema } from './jsonSchema.ts';

const jobFields: Record<string, Schema> = {
  id: str(),
  filter: str('The agents it acts on, in the filter language of /api/agents'),
  action: str('restart or config_rollout'),
  action_config: { type: 'object', description: 'The action’s settings, stored as given' },
  submitted_by: str(),
  status: ref('JobStatus'),
  target_mode: nullable(oneOfValues(['snapshot', 'live'])),
  created_at: time,
  armed_at: nullable(time),
  dispatch_at: nullable(time),
  cancelled_at: nullable(time),
  started_at: nullable(time),
  paused_at: nullable(time),
  finished_at: nullable(time),
  stage: int(),
  gate: nullable(
    object(
      {
        gate: oneOfValues(['max_failed', 'max_unhealthy', 'max_disconnected']),
        limit: { type: 'number' },
        count: { ...int(), description: 'Targets behind the gate besides those accepted at the last resume' },
        acknowledged: { ...int(), description: 'Targets behind the gate accepted at the last resume' },
        agents: arrayOf(str()),
      },
      ['acknowledged'],
    ),
  ),
  acknowledged: {
    ...object({ failed: int(), unhealthy: int(), disconnected: int() }),
    description:
      'A rollout resumed by an operator: the gate counts accepted then; the gates count only targets beyond them',
  },
  from_revision: nullable(int(1)),
  target_counts: { type: 'object', propertyNames: ref('TargetState'), additionalProperties: int() },
  allowed_actions: {
    ...arrayOf(oneOfValues(['arm', ...operatorCommands])),
    description: 'The moves an operator may ask for now (not in the answer of POST /api/jobs)',
  },
  in_force: {
    ...str(),
    description:
      "A config rollout: which revision is in force for whom, in words (e.g. 'Revision 3 is in force for the 12 agents this rollout reached; revision 2 stays current for the rest.')",
  },
};
/** Fields a job has only once it has moved, and allowed_actions (not in the answer of POST). */
const laterFields = [
  'allowed_actions',
  'in_force',
  'started_at',
  'paused_at',
  'finished_at',
  'stage',
  'gate',
  'acknowledged',
  'from_revision',
  'target_counts',
];

export const jobSchemas: Record<string, Schema> = {
  JobStatus: oneOfValues(jobStatuses),
  TargetState: oneOfValues(targetStates),
  Job: object(jobFields, laterFields),
  JobList: object({ jobs: arrayOf(ref('Job')) }),
  JobDetail: object(
    {
      ...jobFields,
      targets: arrayOf(
        object({
          instance_uid: str(),
          state: ref('TargetState'),
          stage: nullable(int()),
          reason: str(),
          dispatched_at: nullable(time),
          sent_at: nullable(time),
          finished_at: nullable(time),
          unhealthy_at: nullable(time),
          disconnected_at: nullable(time),
        }),
      ),
      events: arrayOf(
        object({
          at: time,
          actor: str(),
          kind: str(),
          from_status: nullable(str()),
          to_status: nullable(str()),
          reason: str(),
          details: {},
        }),
      ),
      limit: int(1),
      offset: int(),
    },
    laterFields,
  ),
  NewJob: {
    ...object({
      filter: { type: 'string', minLength: 1 },
      action: { type: 'string', minLength: 1 },
      submitted_by: { type: 'string', minLength: 1 },
      action_config: { type: 'object' },
    }),
    required: ['filter', 'action', 'submitted_by'],
    additionalProperties: true,
  },
  JobCommand: {
    type: 'object',
    description: 'Arm: target_mode, dispatch_at and the action’s settings; the other moves: a reason',
    properties: { reason: str(), target_mode: oneOfValues(['snapshot', 'live']) },
  },
  WrongMove: object({ error: str(), status: ref('JobStatus') }),
};
