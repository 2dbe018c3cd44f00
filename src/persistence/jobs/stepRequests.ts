// Asking for job steps (docs/jobs.md "Across replicas"): a step is a pg-boss job on the queue
// `job-steps` with the job's id as singleton key under the `stately` policy (jobStepper.ts works it),
// so a request made while one waits is coalesced with it. The store and the job agents ask from the
// start, before this replica works the queue.

import type { PgBoss } from 'pg-boss';
import type { Logger } from '../../io/logger.ts';

export const stepQueue = 'job-steps';

/** Asks for a step of the job (after `afterMs`), coalesced with one already waiting. Never rejects. */
export type RequestStep = (jobId: string, afterMs?: number) => Promise<void>;

/** Step requests go on the queue from the start (the store asks for steps before the worker runs). */
export function createStepRequests(boss: PgBoss, now: () => number, logger: Logger): RequestStep {
  return async (jobId, afterMs = 0) => {
    try {
      await boss.send(
        stepQueue,
        { jobId },
        {
          singletonKey: jobId,
          ...(afterMs > 0 && { startAfter: new Date(now() + afterMs) }),
          retryLimit: 1000,
          retryDelay: 1,
          expireInSeconds: 30,
        },
      );
    } catch (error) {
      logger.warn({ err: error, job: jobId }, 'could not schedule a job step; the next tick retries');
    }
  };
}
