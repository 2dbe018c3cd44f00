// Mocha root hook (loaded through .mocharc.json `require`): stops the run's shared PostgreSQL after
// the last spec. Costs nothing in runs that never started one.

import { stopSharedPostgres } from './postgres.ts';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await stopSharedPostgres();
  },
};
