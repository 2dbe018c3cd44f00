// Persistence as the composition root holds it: the same surface as createPersistence
// (persistence.ts), but PostgreSQL's modules (pg, pg-boss and its dashboard, the migrations library)
// are loaded in start(), not when the service's modules load. With persistence off none of them is
// ever loaded; with it on, the service pays for them from start() on. Nothing reaches the store
// before start(): the listeners open after it, and no event flows before them.

import type { Middleware } from 'koa';
import type { InstanceUid } from '../events/ids.ts';
import type { AgentStoreReader } from './agents/storeReader.ts';
import type { JobStore, NewJob } from './jobs/jobStore.ts';
import type { Persistence, PersistenceDeps } from './persistence.ts';

export interface DeferredPersistence {
  readonly reader: AgentStoreReader;
  readonly jobs: JobStore;
  /** Koa middleware for /jobs-ui; answers 503 until start() has loaded the dashboard. */
  readonly jobsUi: Middleware;
  /** Loads the persistence modules, creates persistence and starts it (persistence.ts). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createDeferredPersistence(deps: PersistenceDeps): DeferredPersistence {
  let persistence: Persistence | undefined;
  const started = (): Persistence => {
    if (persistence === undefined) throw new Error('persistence used before start()');
    return persistence;
  };
  return {
    reader: {
      listAgents: () => started().reader.listAgents(),
      getAgent: (uid: InstanceUid) => started().reader.getAgent(uid),
    },
    jobs: { create: (job: NewJob) => started().jobs.create(job) },
    jobsUi: async (ctx, next) => {
      if (persistence !== undefined) await persistence.jobsUi(ctx, next);
      else if (ctx.path === '/jobs-ui' || ctx.path.startsWith('/jobs-ui/'))
        ctx.throw(503, 'job-queue UI is starting');
      else await next();
    },
    async start() {
      const { createPersistence } = await import('./persistence.ts');
      persistence = createPersistence(deps);
      await persistence.start();
    },
    stop: async () => {
      await persistence?.stop();
    },
  };
}
