// The config editor's live check (POST /partials/configs/check, and the editor page's first
// render): what the preview endpoint would answer for the edit (agents targeted, desired hashes that
// would change), why the API would refuse it (with the line of a parse error), and the diff against
// the revision in force.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import { previewChange } from '../write/configPreview.ts';
import { diffAgainst, documentOf, errorLine, previewOf, type ConfigEdit } from './configEdit.ts';
import { configHref } from './configStateLabels.ts';
import type { PagesDeps } from './pageContext.ts';

export const newConfigUrl = '/new-config';

export const checkUrl = '/partials/configs/check';

/**
 * The revision an edit is compared with: the one in force, else (only drafts) the newest; `inForce`
 * is its role now, not when it was saved (a draft rolled out is in force).
 */
export async function comparedWith(
  deps: PagesDeps,
  name: string,
): Promise<{ record: ConfigRevisionRecord; inForce: boolean } | undefined> {
  const summary = await deps.configs.get(name);
  if (summary === undefined) return undefined;
  if (summary.current !== null) return { record: summary.current, inForce: true };
  return { record: summary.latest, inForce: false };
}

/** Whether rollouts can be armed from this service (jobs need persistence and database configs). */
export const rolloutsAvailable = (deps: PagesDeps): boolean =>
  deps.jobs !== undefined &&
  deps.jobStore !== undefined &&
  deps.jobCommands !== undefined &&
  deps.configs.source === 'database';

/**
 * `pristine`: the form as first shown, before any input; a new config's blank form is not yet wrong,
 * so it shows no error (issue 30).
 */
export async function checkLocals(deps: PagesDeps, edit: ConfigEdit, isNew: boolean, pristine = false) {
  const document = documentOf(edit, isNew);
  const error =
    document.ok || pristine ? undefined : { text: document.error, line: errorLine(document.error) };
  // A body that does not parse still leaves the selector to preview, over the config's own body.
  let request = previewOf(edit, isNew, true);
  const withBody = request.ok;
  if (!request.ok) request = previewOf(edit, isNew, false);
  const preview = request.ok ? await previewChange(deps, request.value) : undefined;
  const base = isNew ? undefined : await comparedWith(deps, edit.name);
  const diff = diffAgainst(base?.record, edit);
  const summary =
    base === undefined
      ? 'An empty config → this edit'
      : `Revision ${base.record.revision}${base.inForce ? ' in force' : ' (draft)'} → this edit`;
  return {
    checkUrl,
    isNew,
    saveUrl: isNew ? newConfigUrl : `${configHref(edit.name)}/edit`,
    cancelUrl: isNew ? '/configs' : configHref(edit.name),
    staged: rolloutsAvailable(deps),
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
