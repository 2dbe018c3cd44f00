// Which two revisions the config page compares: `?from=N&to=M`, each optional, always older → newer
// by default. Without either, a draft newer than the revision in force is compared with it (what
// the draft would change), else the current revision (the newest when none is current) with the
// one before it. Without `from`, the revision just before `to`. Pure.

export type RevisionChoice =
  | {
      readonly ok: true;
      /** Undefined when `to` is the oldest revision: there is nothing before it. */
      readonly from: number | undefined;
      readonly to: number;
    }
  | { readonly ok: false; readonly error: string };

function parseRevision(params: URLSearchParams, key: 'from' | 'to', known: readonly number[]) {
  const given = params.getAll(key).filter((v) => v !== '');
  if (given.length === 0) return undefined;
  if (given.length > 1) return `${key} may be given only once`;
  const n = Number(given[0]);
  if (!Number.isSafeInteger(n) || n <= 0)
    return `${key} must be a revision number, got ${JSON.stringify(given[0])}`;
  return known.includes(n) ? n : `there is no revision ${n}`;
}

/** `revisions` are the config's revision numbers, newest first (never empty). */
export function chooseRevisions(
  params: URLSearchParams,
  revisions: readonly number[],
  current: number | null,
): RevisionChoice {
  const from = parseRevision(params, 'from', revisions);
  const to = parseRevision(params, 'to', revisions);
  if (typeof from === 'string') return { ok: false, error: from };
  if (typeof to === 'string') return { ok: false, error: to };
  const newest = revisions[0] ?? 1;
  const draftAhead = current !== null && newest > current;
  const chosenTo = to ?? (draftAhead ? newest : (current ?? newest));
  const before = draftAhead && to === undefined ? current : revisions.find((n) => n < chosenTo);
  return { ok: true, from: from ?? before, to: chosenTo };
}
