// Pug templates compiled once at startup (views/<page>.pug, fragments in views/partials/). Every
// template gets the shared locals (poll interval, helpers); a page and its fragment render the same
// partial, so the polled fragment is byte-for-byte what the page embeds.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pug from 'pug';
import { duration, helpers } from './format.ts';

export const viewsDir = fileURLToPath(new URL('../../../views/', import.meta.url));

export type Locals = Record<string, unknown>;
export type Renderer = (view: string, locals: Locals) => string;

export interface RenderOptions {
  /** ui.poll_interval in milliseconds. */
  readonly pollIntervalMs: number;
  readonly dir?: string;
}

function templates(dir: string): string[] {
  const pages = readdirSync(dir).filter((f) => f.endsWith('.pug'));
  const partials = readdirSync(join(dir, 'partials')).filter((f) => f.endsWith('.pug'));
  return [...pages, ...partials.map((f) => `partials/${f}`)].map((f) => f.slice(0, -'.pug'.length));
}

/** Compiles every template eagerly, so a template error stops startup instead of a request. */
export function createRenderer(options: RenderOptions): Renderer {
  const dir = options.dir ?? viewsDir;
  const compiled = new Map<string, pug.compileTemplate>();
  for (const name of templates(dir)) {
    if (name.startsWith('partials/_') || name.startsWith('_')) continue;
    compiled.set(name, pug.compileFile(join(dir, `${name}.pug`), { basedir: dir, doctype: 'html' }));
  }
  const ms = options.pollIntervalMs;
  const shared = {
    pollTrigger: `every ${ms}ms`,
    pollLabel: ms < 1000 ? `${ms}ms` : duration(ms),
    ...helpers,
  };
  return (view, locals) => {
    const template = compiled.get(view);
    if (template === undefined) throw new Error(`no such view: ${view}`);
    return template({ ...shared, ...locals });
  };
}
