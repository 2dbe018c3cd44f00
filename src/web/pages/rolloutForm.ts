// The config page's Roll out… form (configRollout.ts): its fields as typed, and the
// `config_rollout` job they make, checked as arming checks a job's settings (jobActions.ts) before
// anything is recorded. Pure.

import type { NewJob } from '../../projections/jobs/jobStore.ts';
import { parseActionSettings } from '../../projections/jobs/jobActions.ts';
import type { Checked } from './configEdit.ts';

export interface RolloutForm {
  /** The fleet filter (a matcher list or query string, filterText.ts); the draft's selector narrows it. */
  readonly filter: string;
  /** Cumulative stages, comma-separated: `1, 50%, 100%`. */
  readonly stages: string;
  readonly wait: string;
  readonly maxFailed: string;
  readonly maxUnhealthy: string;
  readonly maxDisconnected: string;
}

export const rolloutDefaults: RolloutForm = {
  filter: 'connected=true',
  stages: '1, 50%, 100%',
  wait: '5m',
  // Any failure pauses (docs/jobs.md "Gates"): the operator widens it knowingly, never by default.
  maxFailed: '0',
  maxUnhealthy: '',
  maxDisconnected: '',
};

export function rolloutFormOf(fields: URLSearchParams): RolloutForm {
  const get = (key: string) => (fields.get(key) ?? '').trim();
  return {
    filter: get('filter'),
    stages: get('stages'),
    wait: get('wait'),
    maxFailed: get('max_failed'),
    maxUnhealthy: get('max_unhealthy'),
    maxDisconnected: get('max_disconnected'),
  };
}

/** The job to record and arm, or why its settings would be refused. */
export function rolloutJob(
  form: RolloutForm,
  config: string,
  revision: number,
  author: string,
): Checked<NewJob> {
  if (form.filter === '')
    return { ok: false, error: 'the filter is required (connected=true takes every connected agent)' };
  const gates = Object.fromEntries(
    (
      [
        ['max_failed', form.maxFailed],
        ['max_unhealthy', form.maxUnhealthy],
        ['max_disconnected', form.maxDisconnected],
      ] as const
    ).filter(([, v]) => v !== ''),
  );
  const action_config = {
    config,
    revision,
    stages: form.stages
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    wait: form.wait === '' ? '0s' : form.wait,
    gates,
  };
  const settings = parseActionSettings('config_rollout', action_config);
  if (!settings.ok) return settings;
  return {
    ok: true,
    value: { filter: form.filter, action: 'config_rollout', action_config, submitted_by: author },
  };
}
