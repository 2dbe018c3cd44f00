// The config editor's live check (POST /partials/configs/check, and the editor page's first
// render): what the preview endpoint would answer for the edit (agents targeted, desired hashes that
// would change), why the API would refuse it (with the line of a parse error), and the diff against
// the revision in force.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import { previewChange } from '../write/configPreview.ts';
import { diffAgainst, documentOf, errorLine, previewOf, type ConfigEdit } from './configEdit.ts';
import type { PagesDeps } from './pageContext.ts';

export const checkUrl = '/partials/configs/check';

/** The revision an edit is compared with: the one in force, else (only drafts) the newest. */
export async function comparedWith(deps: PagesDeps, name: string): Promise<ConfigRevisionRecord | undefined> {
  const summary = await deps.configs.get(name);
  return summary === undefined ? undefined : (summary.current ?? summary.latest);
}

export async function checkLocals(deps: PagesDeps, edit: ConfigEdit, isNew: boolean) {
  const document = documentOf(edit, isNew);
  const error = document.ok ? undefined : { text: document.error, line: errorLine(document.error) };
  // A body that does not parse still leaves the selector to preview, over the config's own body.
  let request = previewOf(edit, isNew, true);
  const withBody = request.ok;
  if (!request.ok) request = previewOf(edit, isNew, false);
  const preview = request.ok ? await previewChange(deps, request.value) : undefined;
  const base = isNew ? undefined : await comparedWith(deps, edit.name);
  const diff = diffAgainst(base, edit);
  const summary =
    base === undefined
      ? 'An empty config → this edit'
      : `Revision ${base.revision}${base.draft ? ' (draft)' : ' in force'} → this edit`;
  return {
    checkUrl,
    error,
    preview:
      preview === undefined
        ? undefined
        : {
            targeted: preview.targeted,
            changed: preview.changed,
            incompatible: preview.incompatible,
            partial: preview.partial,
            withBody,
          },
    diff,
    diffSummary: summary,
  };
}
