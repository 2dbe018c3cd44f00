// What the editor shows when a save lost the race (409): the revisions saved since the edit began,
// who saved the newest and when, and what changed between the edit's base and it. The edit's base
// moves to the newest revision (an out-of-band swap of the form's hidden field), so saving again
// replaces it knowingly; the operator's text is never touched.

import type { PagesDeps } from './pageContext.ts';
import { revisionDiff } from './revisionDiff.ts';

export async function conflictLocals(deps: PagesDeps, name: string, base: number, latest: number) {
  const [from, to] = await Promise.all([
    deps.configs.revision(name, base),
    deps.configs.revision(name, latest),
  ]);
  const saved = to;
  return {
    conflict: {
      base,
      latest,
      author: saved?.author ?? 'someone',
      at: saved?.createdAt ?? null,
      draft: saved?.draft ?? false,
      diff: saved === undefined ? undefined : revisionDiff(from, saved),
      summary: `Revision ${base} (your edit's base) → revision ${latest}`,
    },
  };
}
