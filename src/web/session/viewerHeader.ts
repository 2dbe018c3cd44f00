// The header's account area on every full page (views/_layout.pug leaves a marker for it): who is
// signed in and their role, with Sign out for a session; the role of a token or certificate; or
// Sign in for an anonymous reader (where no one can sign in, that page says how to set it up): the
// same on every anonymous page whatever the settings, so equal pages stay equal. Filled in after
// the page is rendered, from the identity the authentication middleware found, so no page handler
// has to pass it along.

import type { Context, Middleware, Next } from 'koa';
import type { AuthState } from '../auth.ts';

const marker = '<!--svc:viewer-->';

const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function viewerHtml(ctx: Context): string {
  const identity = (ctx.state as AuthState).identity;
  if (identity === undefined) {
    // The same on every page (pages whose bodies must match byte for byte, as the 404s, stay so):
    // /auth/sign-in returns to the page the link was on by its Referer.
    return '<div class="viewer"><a class="icon-button" href="/auth/sign-in">Sign in</a></div>';
  }
  const who = `<span class="who" data-viewer-name>${escape(identity.name)}</span> <span class="role" data-viewer-role>${identity.role}</span>`;
  const signOut =
    identity.kind === 'session'
      ? '<form method="post" action="/auth/sign-out"><button class="icon-button" type="submit">Sign out</button></form>'
      : '';
  return `<div class="viewer">${who}${signOut}</div>`;
}

/** Replaces the layout's marker in HTML answers. */
export function viewerHeader(): Middleware {
  return async (ctx: Context, next: Next) => {
    await next();
    if (typeof ctx.body !== 'string' || !ctx.response.is('html')) return;
    const at = ctx.body.indexOf(marker);
    if (at < 0) return;
    ctx.body = ctx.body.slice(0, at) + viewerHtml(ctx) + ctx.body.slice(at + marker.length);
  };
}
