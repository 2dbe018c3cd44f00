// Pug templates (views/<page>.pug, fragments in views/partials/), all compiled once, at the first page
// rendered: pug and the parser it compiles with (Babel's) stay out of memory until someone opens
// the UI, as most of a fleet server's life is OpAMP traffic. A template error fails that first page
// (a logged 500) and every later one. Every template gets the shared locals (poll interval, helpers);
// a page and its fragment render the same partial, so the polled fragment is byte-for-byte what the
// page embeds.

import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pug from 'pug';
import { duration, helpers } from './format.ts';

/** Synchronous loading on first use (pug is CommonJS); renderers are synchronous. */
const load = createRequire(import.meta.url);

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

function compileAll(dir: string): Map<string, pug.compileTemplate> {
  const { compileFile } = load('pug') as typeof pug;
  const compiled = new Map<string, pug.compileTemplate>();
  for (const name of templates(dir)) {
    if (name.startsWith('partials/_') || name.startsWith('_')) continue;
    compiled.set(name, compileFile(join(dir, `${name}.pug`), { basedir: dir, doctype: 'html' }));
  }
  return compiled;
}

/** Compiles every template at the first render (see the file comment). */
export function createRenderer(options: RenderOptions): Renderer {
  const dir = options.dir ?? viewsDir;
  let compiled: Map<string, pug.compileTemplate> | undefined;
  const ms = options.pollIntervalMs;
  const shared = {
    pollTrigger: `every ${ms}ms`,
    pollLabel: ms < 1000 ? `${ms}ms` : duration(ms),
    ...helpers,
  };
  return (view, locals) => {
    compiled ??= compileAll(dir);
    const template = compiled.get(view);
    if (template === undefined) throw new Error(`no such view: ${view}`);
    return template({ ...shared, ...locals });
  };
}
