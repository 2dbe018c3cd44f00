// Reads the UI's own form posts (application/x-www-form-urlencoded, as htmx sends a form) with a
// byte limit (readCappedBody.ts), so no page write holds more than the limit in memory. A body over
// the limit is recorded for the listener's refusal counter, like the API's.

import type { Context } from 'koa';
import { readCappedBody } from '../../io/http/readCappedBody.ts';
import type { RefusalState } from '../guard/refusal.ts';

export type FormResult =
  | { readonly ok: true; readonly fields: URLSearchParams }
  | { readonly ok: false; readonly status: 400 | 413; readonly error: string };

const formType = 'application/x-www-form-urlencoded';

export async function readForm(ctx: Context, limit: number): Promise<FormResult> {
  const media = (ctx.get('Content-Type').split(';', 1)[0] ?? '').trim().toLowerCase();
  if (media !== '' && media !== formType)
    return { ok: false, status: 400, error: `this form is posted as ${formType}, got ${media}` };
  const bytes = await readCappedBody(ctx.req, limit);
  if (bytes === undefined) {
    ctx.set('Connection', 'close');
    (ctx.state as RefusalState).refusal = 'body_too_large';
    return { ok: false, status: 413, error: `the form is larger than ${limit} bytes` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, status: 400, error: 'the form is not valid UTF-8' };
  }
  const fields = new URLSearchParams(text);
  // PostgreSQL's text refuses NUL, so no field can take it (the JSON API refuses it alike).
  for (const [, value] of fields)
    if (value.includes('\u0000')) return { ok: false, status: 400, error: 'the form holds a NUL character' };
  return { ok: true, fields };
}
