// The job page's buttons: the moves the job's status allows (arm, pause, resume, cancel; rollback
// and promote for rollouts), a label and style each, and a prompt asking why before the moves that end
// something. Pure.

import type { Job } from '../../projections/jobs/jobStore.ts';
import { jobView } from '../views/jobView.ts';
import type { JobCommandName } from '../write/jobCommands.ts';
import { jobHref } from './jobLabels.ts';
import { jobQueryString, type JobQuery } from './jobQuery.ts';

/** The buttons: label, what the server is asked, and a prompt for the moves that end something. */
const buttons = {
  arm: { label: 'Arm', kind: 'primary', prompt: '' },
  resume: { label: 'Resume', kind: 'primary', prompt: '' },
  pause: { label: 'Pause', kind: 'secondary', prompt: '' },
  cancel: {
    label: 'Cancel job',
    kind: 'danger',
    prompt: 'Cancel this job? Nothing more is sent to its targets. Why (kept in its events)?',
  },
  rollback: {
    label: 'Roll back',
    kind: 'danger',
    prompt: 'Roll back? Every target reached returns to the revision it had. Why (kept in its events)?',
  },
  promote: {
    label: 'Promote',
    kind: 'primary',
    prompt:
      'Promote? The revision becomes current for every agent, although some targets failed it. Why (kept in its events)?',
  },
} as const satisfies Record<JobCommandName, { label: string; kind: string; prompt: string }>;

/**
 * The moves the job allows now (the API's allowed_actions), as buttons when the caller may write;
 * each posts to /jobs/{id}/{command} with the page's query, so the answer keeps the targets table
 * where it was.
 */
export function jobButtons(job: Job, query: JobQuery, writable: boolean) {
  const allowed = jobView(job).allowed_actions as (keyof typeof buttons)[];
  const base = `${jobHref(job.id)}/`;
  const keep = jobQueryString(query);
  const url = (command: string, extra = '') =>
    `${base}${command}${keep}${extra === '' ? '' : `${keep === '' ? '?' : '&'}${extra}`}`;
  const list = allowed.flatMap((command) => {
    const b = buttons[command];
    const one = { command, label: b.label, kind: b.kind, prompt: b.prompt, url: url(command), title: '' };
    if (command !== 'arm') return [one];
    return [
      { ...one, title: 'Act on the targets the filter matches now' },
      {
        ...one,
        label: 'Arm live',
        kind: 'secondary',
        url: url(command, 'target_mode=live'),
        title: 'Agents that start matching the filter later join the job while it runs',
      },
    ];
  });
  return { writable, allowed, buttons: writable ? list : [] };
}
