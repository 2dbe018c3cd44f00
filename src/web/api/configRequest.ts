// Request bodies of the config write API, checked and turned into catalog writes. Pure; errors are
// messages for a 400. A PUT may leave fields out: they keep the newest revision's values, so an edit
// after a draft builds on the draft.

import type { ConfigRevisionRecord } from '../../events/configData.ts';
import { parseSelector } from '../../projections/filter/selector.ts';
import {
  configNameProblem,
  defaultContentType,
  validateDocument,
  type ConfigDocument,
} from '../../projections/remoteConfig/validateConfig.ts';

type Fields = Record<string, unknown>;
export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const known = new Set(['name', 'selector', 'body', 'content_type', 'enabled', 'draft', 'revision']);

function field<T>(
  body: Fields,
  name: string,
  type: 'string' | 'boolean' | 'revision',
): Checked<T | undefined> {
  const v = body[name];
  if (v === undefined || v === null) return { ok: true, value: undefined };
  if (type === 'revision')
    return Number.isSafeInteger(v) && (v as number) > 0
      ? { ok: true, value: v as T }
      : { ok: false, error: `${name} must be a positive integer` };
  return typeof v === type ? { ok: true, value: v as T } : { ok: false, error: `${name} must be a ${type}` };
}

interface Parts {
  name?: string;
  selector?: string;
  body?: string;
  contentType?: string;
  enabled?: boolean;
  draft: boolean;
  revision?: number;
}

function parts(body: unknown): Checked<Parts> {
  if (!isObject(body)) return { ok: false, error: 'request body must be a JSON object' };
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length > 0) return { ok: false, error: `unknown field(s): ${unknown.join(', ')}` };
  const out: Parts = { draft: false };
  const checks = [
    ['name', 'string'],
    ['selector', 'string'],
    ['body', 'string'],
    ['content_type', 'string'],
    ['enabled', 'boolean'],
    ['draft', 'boolean'],
    ['revision', 'revision'],
  ] as const;
  for (const [name, type] of checks) {
    const v = field<string | boolean | number>(body, name, type);
    if (!v.ok) return v;
    if (v.value === undefined) continue;
    const key = name === 'content_type' ? 'contentType' : name;
    (out as unknown as Record<string, unknown>)[key] = v.value;
  }
  return { ok: true, value: out };
}

export interface CreateRequest {
  readonly name: string;
  readonly document: ConfigDocument;
  readonly draft: boolean;
}

/** POST /api/configs: name, selector and body are required. */
export function parseCreate(body: unknown): Checked<CreateRequest> {
  const p = parts(body);
  if (!p.ok) return p;
  const { name, selector, body: text } = p.value;
  if (name === undefined) return { ok: false, error: 'name is required' };
  const nameProblem = configNameProblem(name);
  if (nameProblem !== undefined) return { ok: false, error: nameProblem };
  if (selector === undefined) return { ok: false, error: 'selector is required' };
  if (text === undefined) return { ok: false, error: 'body is required' };
  const document = validateDocument({
    selector,
    body: text,
    contentType: p.value.contentType ?? defaultContentType,
    enabled: p.value.enabled ?? true,
  });
  return document.ok
    ? { ok: true, value: { name, document: document.value, draft: p.value.draft } }
    : document;
}

export interface UpdateRequest {
  readonly document: ConfigDocument;
  readonly draft: boolean;
  /** The revision the change is based on (the precondition). */
  readonly base: number;
}

/** PUT /api/configs/{name}: `revision` (the newest one the client saw) is required. */
export function parseUpdate(body: unknown, latest: ConfigRevisionRecord): Checked<UpdateRequest> {
  const p = parts(body);
  if (!p.ok) return p;
  if (p.value.name !== undefined && p.value.name !== latest.name)
    return { ok: false, error: 'name cannot change; create a new config instead' };
  if (p.value.revision === undefined)
    return {
      ok: false,
      error: `revision is required: the revision your change is based on (now ${latest.revision})`,
    };
  const document = validateDocument({
    selector: p.value.selector ?? latest.selector,
    body: p.value.body ?? latest.body,
    contentType: p.value.contentType ?? latest.contentType,
    enabled: p.value.enabled ?? latest.enabled,
  });
  if (!document.ok) return document;
  return { ok: true, value: { document: document.value, draft: p.value.draft, base: p.value.revision } };
}

/** The optional precondition of restore and delete bodies. */
export function parseBase(body: unknown): Checked<number | undefined> {
  if (body === undefined) return { ok: true, value: undefined };
  const p = parts(body);
  return p.ok ? { ok: true, value: p.value.revision } : p;
}

export interface PreviewRequest {
  readonly name: string | undefined;
  readonly selector: string;
  readonly body: string | undefined;
  readonly contentType: string | undefined;
  readonly enabled: boolean;
}

/** A preview: a selector alone, or a config draft (with a body). */
export function parsePreview(body: unknown): Checked<PreviewRequest> {
  const p = parts(body);
  if (!p.ok) return p;
  const { selector } = p.value;
  if (selector === undefined) return { ok: false, error: 'selector is required' };
  if (p.value.name !== undefined) {
    const problem = configNameProblem(p.value.name);
    if (problem !== undefined) return { ok: false, error: problem };
  }
  if (p.value.body !== undefined) {
    const doc = validateDocument({
      selector,
      body: p.value.body,
      contentType: p.value.contentType ?? defaultContentType,
      enabled: true,
    });
    if (!doc.ok) return doc;
  } else {
    const parsed = parseSelector(selector);
    if (!parsed.ok) return parsed;
  }
  return {
    ok: true,
    value: {
      name: p.value.name,
      selector,
      body: p.value.body,
      contentType: p.value.contentType,
      enabled: p.value.enabled ?? true,
    },
  };
}
