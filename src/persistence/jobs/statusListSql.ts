// Job statuses as SQL lists, built from the one status table (jobLifecycle.ts), so a new status is
// placed in every query by saying how it behaves. Pure; the values are fixed identifiers, not input.

import { statusesWhere, type StatusBehaviour } from '../../projections/jobs/jobLifecycle.ts';

/** `('running', 'paused', …)`: the statuses whose behaviour has `flag` set. */
export const statusListSql = (flag: keyof StatusBehaviour): string =>
  `(${statusesWhere(flag)
    .map((s) => `'${s}'`)
    .join(', ')})`;
