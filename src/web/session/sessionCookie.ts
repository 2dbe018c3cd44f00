// The session cookie (docs/security.md "Sessions"): a random 256-bit value, HttpOnly (no script
// reads it), SameSite=Lax (another site's form post or fetch does not carry it; a link from the
// provider back to /auth/callback does), Path=/, and Secure when the UI is reached over https (the
// listener has TLS, or ui.public_url is https), then named with the __Host- prefix so no subdomain
// can set it. The store keeps its SHA-256 only. Written by hand rather than with koa's cookies,
// which refuse a Secure cookie on a plain connection, as behind a proxy that ends TLS.

import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';

export const sessionCookieName = (secure: boolean): string => (secure ? '__Host-svc_session' : 'svc_session');

export const newSecret = (): string => randomBytes(32).toString('base64url');

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface CookieOptions {
  readonly secure: boolean;
  /** Seconds; 0 deletes the cookie. */
  readonly maxAge: number;
  readonly path?: string;
}

export function setCookie(ctx: Context, name: string, value: string, options: CookieOptions): void {
  const parts = [
    `${name}=${value}`,
    `Path=${options.path ?? '/'}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAge))}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (options.secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

/** The value of cookie `name` in the request, or undefined. */
export function readCookie(ctx: Context, name: string): string | undefined {
  for (const pair of ctx.get('Cookie').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
