// SPEC "UI listener: web UI" /static/...: the assets are read into memory once at startup ("embedded"),
// so a request never touches the file system and no path from a request is ever joined to a directory.
// htmx is served from its installed npm package (no copy in the repository, no CDN).

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';
import { setSecurityHeaders } from './pageContext.ts';

export interface StaticAsset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

const types: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export const staticDir = fileURLToPath(new URL('../../../static/', import.meta.url));

const vendored: Readonly<Record<string, string>> = {
  'vendor/htmx.min.js': 'htmx.org/dist/htmx.min.js',
};

function asset(body: Buffer, file: string): StaticAsset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, type: types[extname(file)] ?? 'application/octet-stream', etag };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : entry.isFile() ? [path] : [];
  });
}

/** Every asset keyed by its path below /static/ (for example `css/app.css`). */
export function loadStaticAssets(dir: string = staticDir): ReadonlyMap<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const file of walk(dir)) {
    assets.set(relative(dir, file).split(sep).join('/'), asset(readFileSync(file), file));
  }
  for (const [path, specifier] of Object.entries(vendored)) {
    const file = fileURLToPath(import.meta.resolve(specifier));
    assets.set(path, asset(readFileSync(file), file));
  }
  return assets;
}

/** GET/HEAD /static/<path>: 200 with a strong ETag (304 when it matches), else 404. */
export function mountStaticAssets(router: Router, assets: ReadonlyMap<string, StaticAsset>): void {
  router.get('/static/*path', (ctx) => {
    const found = assets.get(String(ctx.params.path));
    if (found === undefined) return;
    setSecurityHeaders(ctx);
    // Revalidate every time (cheap 304s): a new deployment's assets are picked up at once.
    ctx.set('Cache-Control', 'no-cache');
    ctx.etag = found.etag;
    ctx.type = found.type;
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = found.body;
  });
}
