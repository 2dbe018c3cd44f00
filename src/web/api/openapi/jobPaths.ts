// Paths of the jobs API (src/web/api/jobRoutes.ts, jobControlRoutes.ts).

import { maxCommandBytes } from '../jobControlRoutes.ts';
import { maxJobBodyBytes } from '../jobRoutes.ts';
import { ref } from './jsonSchema.ts';
import {
  json,
  jsonBody,
  pageParams,
  pathParam,
  queryParam,
  responses,
  writeNote,
  writeSecurity,
} from './operations.ts';

const id = pathParam('id', { type: 'string' }, 'Job id');

function command(name: string, summary: string) {
  return {
    post: {
      operationId: `${name}Job`,
      summary,
      description: writeNote,
      security: writeSecurity,
      parameters: [id],
      requestBody: jsonBody(ref('JobCommand'), maxCommandBytes, false),
      responses: responses(
        {
          '200': json('The job after the move', ref('Job')),
          '409': json('A move the job’s status does not allow (`status` is the job’s)', {
            anyOf: [ref('WrongMove'), ref('Error')],
          }),
        },
        ['400', '404', '413', '503'],
      ),
    },
  };
}

export const jobPaths = {
  '/api/jobs': {
    get: {
      operationId: 'listJobs',
      summary: 'The 500 newest jobs, newest first',
      parameters: [queryParam('status', ref('JobStatus'), 'Keep jobs in this status')],
      responses: responses({ '200': json('Jobs', ref('JobList')) }, ['400', '503']),
    },
    post: {
      operationId: 'createJob',
      summary: 'Record a planned job (it acts once armed)',
      requestBody: jsonBody(ref('NewJob'), maxJobBodyBytes),
      responses: responses({ '201': json('The planned job', ref('Job')) }, ['400', '413', '503']),
    },
  },
  '/api/jobs/{id}': {
    get: {
      operationId: 'getJob',
      summary: 'One job with a page of its targets and its events',
      parameters: [id, queryParam('state', ref('TargetState'), 'Keep targets in this state'), ...pageParams],
      responses: responses({ '200': json('The job', ref('JobDetail')) }, ['400', '404', '503']),
    },
  },
  '/api/jobs/{id}/arm': command('arm', 'Arm a planned job (snapshot or live targets, a dispatch time)'),
  '/api/jobs/{id}/pause': command('pause', 'Pause a running job'),
  '/api/jobs/{id}/resume': command(
    'resume',
    'Resume a paused job; a rollout accepts its failed, unhealthy and disconnected targets so far (`acknowledged`), and its gates then count only new ones',
  ),
  '/api/jobs/{id}/cancel': command('cancel', 'Cancel a job'),
  '/api/jobs/{id}/rollback': command('rollback', 'Roll a config rollout back'),
  '/api/jobs/{id}/promote': command(
    'promote',
    'Promote a config rollout awaiting promotion: its revision becomes current for every agent',
  ),
};
