// Pages that need a sign-in send the browser to it and back (docs/security.md "Signing people in"):
// a page (GET of HTML, not the API, a fragment, an asset or htmx) answered 401 or 403 to a caller with no
// identity is answered instead with a redirect to /auth/sign-in?return_to=<the page>, when people
// can sign in here. The refusal is still counted (the request guard reads ctx.state.refusal).

import type { Context, Middleware, Next } from 'koa';
import type { AuthState } from '../auth.ts';

const notPages = /^\/(api|static|auth|partials|jobs-ui)(\/|$)/;

export function signInRedirect(signInOffered: boolean): Middleware {
  return async (ctx: Context, next: Next) => {
    await next();
    if (!signInOffered || (ctx.status !== 401 && ctx.status !== 403)) return;
    if (ctx.method !== 'GET' || notPages.test(ctx.path) || ctx.get('HX-Request') !== '') return;
    // A browser's navigation asks for HTML; a script or curl asking for anything gets the refusal.
    if (!ctx.get('Accept').includes('text/html')) return;
    if ((ctx.state as AuthState).identity !== undefined) return;
    ctx.status = 303;
    ctx.redirect(`/auth/sign-in?return_to=${encodeURIComponent(ctx.originalUrl)}`);
    ctx.body = 'sign in first\n';
  };
}
