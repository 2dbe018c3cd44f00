// A job's action settings in words for the job page (docs/jobs.md "Actions"): what a restart waits
// for and how fast it goes, what a rollout rolls out, in which stages and behind which gates. The
// settings are read as arming reads them (parseActionSettings), so the page shows the defaults a
// job runs with; settings that do not parse are shown as recorded, with the reason. Pure.

import { formatAmount, type Amount } from '../../projections/jobs/amount.ts';
import { parseActionSettings, type Gates } from '../../projections/jobs/jobActions.ts';
import type { Job } from '../../projections/jobs/jobStore.ts';
import { configHref } from './configStateLabels.ts';
import { duration } from './format.ts';

export interface SettingItem {
  readonly term: string;
  readonly text: string;
  /** Shown after the text, muted. */
  readonly note?: string;
  readonly href?: string;
}

export interface JobSettings {
  readonly items: readonly SettingItem[];
  /** Why the settings cannot be used (arming refuses them). */
  readonly error?: string;
  /** action_config as recorded, shown when it does not parse. */
  readonly raw: string;
  /** Rollout stages, for the progress per stage. */
  readonly stages?: readonly Amount[];
}

/** `2m`, `30s`, `1h 30m`: a duration without its zero parts. */
export const shortDuration = (ms: number): string => duration(ms).replace(/ 0[smh]$/, '');

const share = (amount: Amount): string =>
  'count' in amount ? String(amount.count) : `${formatAmount(amount)} of the targets`;

function gatesText(gates: Gates): string {
  const parts = [
    ['max_failed', gates.maxFailed],
    ['max_unhealthy', gates.maxUnhealthy],
    ['max_disconnected', gates.maxDisconnected],
  ]
    .filter((g): g is [string, Amount] => g[1] !== undefined)
    .map(([name, amount]) => `${name} ${formatAmount(amount)}`);
  return parts.join(' · ');
}

export function jobSettings(job: Job): JobSettings {
  const raw = JSON.stringify(job.action_config, null, 2);
  const parsed = parseActionSettings(job.action, job.action_config);
  if (!parsed.ok) return { items: [], error: parsed.error, raw };
  const s = parsed.value;
  if (s.action === 'restart')
    return {
      raw,
      items: [
        {
          term: 'Reconnect timeout',
          text: shortDuration(s.reconnectTimeoutMs),
          note: 'a target that has not come back by then fails',
        },
        {
          term: 'Batch size',
          text: share(s.batchSize),
          note: 'batches of restarts grow 1, 2, 4, … up to this many at once',
        },
        {
          term: 'Backoff cap',
          text: s.backoffCapMs === 0 ? 'no wait' : shortDuration(s.backoffCapMs),
          note: 'waits between batches grow 1s, 2s, 4s, … up to this',
        },
      ],
    };
  const from = job.from_revision;
  return {
    raw,
    stages: s.stages,
    items: [
      { term: 'Config', text: s.config, href: configHref(s.config) },
      {
        term: 'Revision',
        text: `#${s.revision}`,
        ...(from !== null && from !== undefined && { note: `from #${from}, current when armed` }),
      },
      {
        term: 'Stages',
        text: s.stages.map(formatAmount).join(' → '),
        note: 'targets reached by the end of each stage',
      },
      {
        term: 'Wait',
        text: s.waitMs === 0 ? 'none' : shortDuration(s.waitMs),
        note: 'between stages, once every target of a stage has finished',
      },
      {
        term: 'Gates',
        text: gatesText(s.gates),
        note: 'exceeding one pauses the rollout; a share is of the targets reached, rounded down; max_failed is 0 unless named, and 0 in the canary stage (the first of several)',
      },
      {
        term: 'Apply timeout',
        text: shortDuration(s.applyTimeoutMs),
        note: 'a target that has not applied the revision by then fails',
      },
      {
        term: 'Disconnect window',
        text: shortDuration(s.disconnectWindowMs),
        note: 'a target lost this soon after receiving it counts as disconnected',
      },
    ],
  };
}
