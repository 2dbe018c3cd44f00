// Validation of a POST /api/jobs body (SPEC "Job"): filter, action and submitted_by are required
// non-empty strings; action_config is optional and must be a JSON object. The filter is stored as
// given and not evaluated (SPEC: "not evaluated until armed").

import type { NewJob } from '../../projections/jobs/jobStore.ts';

export type ValidatedJob =
  { readonly ok: true; readonly job: NewJob } | { readonly ok: false; readonly error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateNewJob(body: unknown): ValidatedJob {
  if (!isObject(body)) return { ok: false, error: 'request body must be a JSON object' };
  const fields: Record<'filter' | 'action' | 'submitted_by', string> = {
    filter: '',
    action: '',
    submitted_by: '',
  };
  for (const name of ['filter', 'action', 'submitted_by'] as const) {
    const v = body[name];
    if (v === undefined || v === null) return { ok: false, error: `${name} is required` };
    if (typeof v !== 'string') return { ok: false, error: `${name} must be a string` };
    if (v.trim() === '') return { ok: false, error: `${name} must not be empty` };
    fields[name] = v;
  }
  const config = body.action_config;
  if (config !== undefined && !isObject(config))
    return { ok: false, error: 'action_config must be a JSON object' };
  return { ok: true, job: { ...fields, action_config: config ?? {} } };
}
