// What the UI listener adds around pg-boss's dashboard at /jobs-ui (issue 30): the security headers
// every other UI response carries, nothing loaded from outside the service, and a way home.
//
// - Headers: nosniff, same-origin referrers, and a Content-Security-Policy as strict as the
//   dashboard allows: its server-rendered inline scripts are allowed by their SHA-256 hashes (taken
//   from the page being sent), its inline style attributes need 'unsafe-inline' for styles only.
// - Outside loads: the dashboard links a web font from a public host, in its server-rendered page
//   and again in its client script (React re-creates the links when it hydrates). Both are rewritten
//   to an empty stylesheet served here, so a closed network refuses nothing and no reader is
//   announced to a third party; the page falls back to the system fonts. The policy refuses any
//   other outside load the dashboard might start.
// - Home: a link back to the fleet UI as the page's first element (React 19 hydration skips
//   elements it did not render at the top of <body>).

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context, Middleware, Next } from 'koa';

export const noFontsPath = '/jobs-ui/__local-fonts.css';

/** The dashboard's pages are small; a larger one is passed on unchanged rather than held. */
const maxRewrittenBytes = 4 * 1024 * 1024;

export function jobsUiPolicy(scriptHashes: readonly string[]): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'sha256-${h}'`)].join(' ');
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'self'",
    "frame-ancestors 'self'",
    "object-src 'none'",
  ].join('; ');
}

const homeLink =
  '<a href="/" data-fleet-home style="display:block;padding:6px 16px;font:14px system-ui,sans-serif;' +
  'background:#1d2430;color:#e4e8ee;text-decoration:none">← Fleet UI</a>';

const fontHosts = /(?:https?:)?\/\/fonts\.(?:googleapis|gstatic)\.com[^"'`\s)]*/g;

/** The dashboard's page or script with its web-font addresses pointed at the empty local stylesheet. */
export const localizeFonts = (text: string): string => text.replace(fontHosts, noFontsPath);

/** The page with fonts local, the home link added, and its inline scripts' hashes. */
export function rewriteDashboardHtml(html: string): { html: string; scriptHashes: string[] } {
  const linked = localizeFonts(html);
  const withHome = linked.replace(/<body\b[^>]*>/i, (open) => `${open}${homeLink}`);
  const scriptHashes: string[] = [];
  for (const m of withHome.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    scriptHashes.push(createHash('sha256').update(m[1]!, 'utf8').digest('base64'));
  }
  return { html: withHome, scriptHashes };
}

async function bodyText(body: unknown): Promise<string | undefined> {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (!(body instanceof Readable)) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > maxRewrittenBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isUnder = (path: string) => path === '/jobs-ui' || path.startsWith('/jobs-ui/');

export function jobsUiShell(dashboard: Middleware): Middleware {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!isUnder(ctx.path)) {
      await next();
      return;
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    if (ctx.path === noFontsPath && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.set('Content-Security-Policy', jobsUiPolicy([]));
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = '/* The dashboard uses the system fonts: nothing is loaded from outside this service. */\n';
      return;
    }
    await dashboard(ctx, next);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Content-Security-Policy', jobsUiPolicy([]));
    const html = Boolean(ctx.response.is('html'));
    if (!html && !ctx.response.is('text/javascript', 'application/javascript')) return;
    const status = ctx.status;
    // Not rewritten when too large: the strictest policy then refuses its inline scripts too.
    const text = await bodyText(ctx.body);
    if (text === undefined) return;
    ctx.remove('Content-Length');
    if (html) {
      const page = rewriteDashboardHtml(text);
      ctx.body = page.html;
      ctx.set('Content-Security-Policy', jobsUiPolicy(page.scriptHashes));
    } else ctx.body = localizeFonts(text);
    ctx.status = status;
  };
}
