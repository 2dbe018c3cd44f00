// What the config editor posts, read from its form and checked as the JSON API checks a write
// (configRequest.ts), and what the editor shows of it: the parse error with its line, the diff
// against the revision in force. Pure.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import { bodyHashOf } from '../../projections/remoteConfig/desiredConfig.ts';
import { defaultContentType, type ConfigDocument } from '../../projections/remoteConfig/validateConfig.ts';
import { parseCreate, parsePreview, type PreviewRequest } from '../api/configRequest.ts';
import { revisionDiff, type RevisionDiff } from './revisionDiff.ts';

/** The editor's fields as typed; `base` is the revision the edit started from (none for a new config). */
export interface ConfigEdit {
  readonly name: string;
  readonly selector: string;
  readonly contentType: string;
  readonly enabled: boolean;
  readonly body: string;
  readonly base: number | undefined;
}

/** The form's fields; a missing checkbox is `enabled: false`, as a browser sends it. */
export function editOf(fields: URLSearchParams): ConfigEdit {
  const base = Number(fields.get('revision') ?? '');
  return {
    name: (fields.get('name') ?? '').trim(),
    selector: fields.get('selector') ?? '',
    contentType: (fields.get('content_type') ?? '').trim() || defaultContentType,
    enabled: fields.get('enabled') === 'true',
    // Browsers post a textarea's line ends as CRLF; the body is stored as typed.
    body: (fields.get('body') ?? '').replaceAll('\r\n', '\n'),
    base: Number.isSafeInteger(base) && base > 0 ? base : undefined,
  };
}

export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** The edit as the document a write would store, or why the API would refuse it. */
export function documentOf(edit: ConfigEdit, isNew: boolean): Checked<ConfigDocument> {
  const checked = parseCreate({
    name: isNew ? edit.name : 'unchanged',
    selector: edit.selector,
    body: edit.body,
    content_type: edit.contentType,
    enabled: edit.enabled,
  });
  return checked.ok ? { ok: true, value: checked.value.document } : checked;
}

/** The preview request for the live check: the whole edit, or its selector alone when the body does not parse. */
export function previewOf(edit: ConfigEdit, isNew: boolean, bodyParses: boolean): Checked<PreviewRequest> {
  return parsePreview({
    ...(!isNew && { name: edit.name }),
    selector: edit.selector,
    ...(bodyParses && { body: edit.body, content_type: edit.contentType }),
    enabled: edit.enabled,
  });
}

/**
 * The 1-based line a parse error names: js-yaml writes `(3:5)`, V8's JSON.parse `(line 3 column 5)`.
 * Undefined when the message names none.
 */
export function errorLine(message: string): number | undefined {
  const m = /\(line (\d+) column \d+\)/.exec(message) ?? /\((\d+):\d+\)/.exec(message);
  return m === null ? undefined : Number(m[1]);
}

/** The edit as a revision record, numbered `revision`, so the revision diff can compare it. */
export function editRecord(edit: ConfigEdit, revision: number, author: string): ConfigRevisionRecord {
  return {
    name: edit.name,
    revision,
    selector: edit.selector,
    body: edit.body,
    contentType: edit.contentType,
    enabled: edit.enabled,
    bodyHash: bodyHashOf(edit.body),
    draft: false,
    author,
    createdAt: 0,
    restoredFrom: null,
  };
}

/** The edit against the revision in force; a new config is compared with an empty one. */
export function diffAgainst(inForce: ConfigRevisionRecord | undefined, edit: ConfigEdit): RevisionDiff {
  const empty = inForce ?? { ...editRecord(edit, 0, ''), selector: '', body: '', bodyHash: bodyHashOf('') };
  return revisionDiff(empty, editRecord(edit, (inForce?.revision ?? 0) + 1, ''));
}
