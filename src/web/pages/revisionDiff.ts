// What the config page shows of the difference between two revisions: the settings that changed
// (selector, content type, enabled) and a line diff of the bodies. Pure.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import { lineDiff, type DiffRow } from './lineDiff.ts';

export interface SettingChange {
  readonly setting: string;
  readonly from: string;
  readonly to: string;
}

export interface RevisionDiff {
  readonly from: number | null;
  readonly to: number;
  /** Why there are no rows to show although the bodies may differ; empty otherwise. */
  readonly message: string;
  readonly settings: readonly SettingChange[];
  readonly rows: readonly DiffRow[];
  readonly added: number;
  readonly removed: number;
  readonly sameBody: boolean;
}

function settingChanges(a: ConfigRevisionRecord, b: ConfigRevisionRecord): SettingChange[] {
  const settings: [string, string, string][] = [
    ['Selector', a.selector, b.selector],
    ['Content type', a.contentType, b.contentType],
    ['Enabled', a.enabled ? 'yes' : 'no', b.enabled ? 'yes' : 'no'],
  ];
  return settings.filter(([, x, y]) => x !== y).map(([setting, from, to]) => ({ setting, from, to }));
}

export function revisionDiff(from: ConfigRevisionRecord | undefined, to: ConfigRevisionRecord): RevisionDiff {
  const none = { settings: [], rows: [], added: 0, removed: 0, sameBody: false };
  if (from === undefined)
    return {
      ...none,
      from: null,
      to: to.revision,
      message: `Revision ${to.revision} is the first: there is no earlier revision to compare it with.`,
    };
  const base = { from: from.revision, to: to.revision, settings: settingChanges(from, to) };
  if (from.bodyHash === to.bodyHash && from.body === to.body)
    return { ...none, ...base, sameBody: true, message: '' };
  const diff = lineDiff(from.body, to.body);
  if (!diff.ok) return { ...none, ...base, message: diff.reason };
  return { ...base, message: '', rows: diff.rows, added: diff.added, removed: diff.removed, sameBody: false };
}
