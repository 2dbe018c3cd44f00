// Remote-config rows (array mode, in the column order of configSql.ts's revisionColumns) → records.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import type { ConfigSummary } from '../../projections/remoteConfig/configCatalog.ts';

type Row = readonly unknown[];
export const revisionWidth = 11;

export function revisionFromRow(row: Row, at = 0): ConfigRevisionRecord {
  return {
    name: row[at] as string,
    revision: row[at + 1] as number,
    selector: row[at + 2] as string,
    body: row[at + 3] as string,
    contentType: row[at + 4] as string,
    enabled: row[at + 5] as boolean,
    bodyHash: row[at + 6] as string,
    author: row[at + 7] as string,
    createdAt: Math.round(row[at + 8] as number),
    draft: row[at + 9] as boolean,
    restoredFrom: row[at + 10] as number | null,
  };
}

/** A row of listConfigsSql: updated_at, then the latest revision, then the current one (or nulls). */
export function summaryFromRow(row: Row): ConfigSummary {
  const latest = revisionFromRow(row, 1);
  const current = row[1 + revisionWidth] === null ? null : revisionFromRow(row, 1 + revisionWidth);
  return { name: latest.name, current, latest, updatedAt: Math.round(row[0] as number) };
}
