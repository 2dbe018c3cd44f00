// Who may use the config editor's writes, checked before any form is read: a post from this UI
// (HX-Request, same origin: sameOriginWrite.ts), the API's write rule (authorizeWrite), and an
// admin identity, because the editor works on whole bodies and only admins see secrets whole
// (docs/security.md "Reads and redaction"); an anonymous writer (auth.allow_unauthenticated_writes)
// uses the JSON API.

import type { Context } from 'koa';
import { authorizeWrite, seesSecrets } from '../auth.ts';
import { crossSiteProblem } from './sameOriginWrite.ts';

export type PageWriter =
  | { readonly ok: true; readonly author: string }
  | { readonly ok: false; readonly status: 403; readonly error: string };

export const editorNeedsAdmin =
  'Editing configs needs an admin identity (an API token or client certificate with role admin); the JSON API takes the same writes.';

const notFromEditor =
  'configs are edited from the config pages of this UI only; use the JSON API from elsewhere';

/** May this request see the editor's forms? */
export const mayEdit = (ctx: Context): boolean => seesSecrets(ctx);

export function pageWriter(ctx: Context, allowUnauthenticatedWrites: boolean): PageWriter {
  const crossSite = crossSiteProblem(
    {
      hxRequest: ctx.get('HX-Request'),
      origin: ctx.get('Origin'),
      fetchSite: ctx.get('Sec-Fetch-Site'),
      host: ctx.host,
    },
    notFromEditor,
  );
  if (crossSite !== undefined) return { ok: false, status: 403, error: crossSite };
  const auth = authorizeWrite(ctx, allowUnauthenticatedWrites);
  if (!auth.ok) return auth;
  if (!mayEdit(ctx)) return { ok: false, status: 403, error: editorNeedsAdmin };
  return auth;
}
