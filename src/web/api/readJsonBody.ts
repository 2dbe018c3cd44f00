// Reads a JSON request body with a byte limit (readCappedBody.ts) and a nesting limit: every route
// after this walks the value recursively (validation, storage, JSON.stringify), so a body nested
// deeper than maxJsonDepth is a 400 before it is even parsed, found by one linear scan.

import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { readCappedBody } from '../../io/http/readCappedBody.ts';
import type { RefusalState } from '../guard/refusal.ts';

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly status: 400 | 413;
      readonly error: string;
      /** Set when a limit refused the body (counted in svc_ui_requests_refused_total). */
      readonly limit?: 'body_too_large' | 'body_too_deep';
    };

/** Deeper than any request this API takes (a job's action_config is two or three levels). */
export const maxJsonDepth = 64;

/**
 * The deepest nesting of objects and arrays in a JSON text, and whether a string in it holds a NUL
 * (`\u0000`: PostgreSQL's text and jsonb refuse it, so no field can take it). One linear scan.
 */
export function jsonShape(text: string): { readonly depth: number; readonly nul: boolean } {
  let depth = 0;
  let deepest = 0;
  let nul = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++)
        if (text.charCodeAt(i) === 0x5c /* \ */) nul ||= text.startsWith('u0000', ++i);
    } else if (c === 0x7b || c === 0x5b /* { [ */) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d /* } ] */) depth--;
  }
  return { depth: deepest, nul };
}

function tooLarge(limit: number): BodyResult {
  return {
    ok: false,
    status: 413,
    error: `request body is larger than ${limit} bytes`,
    limit: 'body_too_large',
  };
}

/** With `allowEmpty`, an empty body reads as `undefined` instead of a 400. */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
  { allowEmpty = false } = {},
): Promise<BodyResult> {
  const bytes = await readCappedBody(req, limit);
  if (bytes === undefined) return tooLarge(limit);
  if (allowEmpty && bytes.length === 0) return { ok: true, value: undefined };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, status: 400, error: 'request body is not valid UTF-8' };
  }
  const shape = jsonShape(text);
  if (shape.nul)
    return {
      ok: false,
      status: 400,
      error: 'request body holds a NUL character (\\u0000), which no field takes',
    };
  if (shape.depth > maxJsonDepth)
    return {
      ok: false,
      status: 400,
      error: `request body nests objects or arrays deeper than ${maxJsonDepth} levels`,
      limit: 'body_too_deep',
    };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'parse error';
    return { ok: false, status: 400, error: `request body is not valid JSON: ${reason}` };
  }
}

/**
 * The request's JSON body, or the refusal thrown (400/413) for the API's one error path. A limit
 * that refused it is recorded for the listener's refusal counter; an oversized body's unread rest
 * is not worth keeping the connection for.
 */
export async function readJsonRequest(ctx: Context, limit: number, options = { allowEmpty: false }) {
  const body = await readJsonBody(ctx.req, limit, options);
  if (body.ok) return body.value;
  if (body.status === 413) ctx.set('Connection', 'close');
  if (body.limit !== undefined) (ctx.state as RefusalState).refusal = body.limit;
  return ctx.throw(body.status, body.error);
}
