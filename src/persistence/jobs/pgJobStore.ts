// JobStore on PostgreSQL (SPEC "Job", rule 22 aside): POST /api/jobs records a planned job; nothing
// is matched or dispatched.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Job, JobStore, NewJob } from './jobStore.ts';
import { storedJson, storedText } from '../database/storedText.ts';
import type { Sql } from '../database/sql.ts';

export function insertJobSql(job: Job): Sql {
  return {
    text: `INSERT INTO jobs (id, filter, action, action_config, status, target_mode, submitted_by, created_at,
  armed_at, dispatch_at, cancelled_at)
VALUES ($1, $2, $3, $4::jsonb, $5, NULL, $6, $7::timestamptz, NULL, NULL, NULL)`,
    values: [
      job.id,
      storedText(job.filter),
      storedText(job.action),
      storedJson(job.action_config),
      job.status,
      storedText(job.submitted_by),
      job.created_at,
    ],
  };
}

export function createPgJobStore(pool: pg.Pool, now: () => number): JobStore {
  return {
    async create(request: NewJob): Promise<Job> {
      const job: Job = {
        id: randomUUID(),
        filter: request.filter,
        action: request.action,
        action_config: request.action_config,
        status: 'planned',
        target_mode: null,
        submitted_by: request.submitted_by,
        created_at: new Date(now()).toISOString(),
        armed_at: null,
        dispatch_at: null,
        cancelled_at: null,
      };
      await pool.query(insertJobSql(job));
      return job;
    },
  };
}
