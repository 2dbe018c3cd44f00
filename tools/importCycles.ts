// Finds import circles among the TypeScript files under a folder, counting type-only imports too.
// ESLint's import-x/no-cycle skips `import type`, because those edges are erased at run time; but a
// circle of types is still two modules that cannot be understood, tested or moved apart, so the
// architecture forbids it as well. `npm run lint` runs `node tools/importCycles.ts src`, which prints
// every circle and exits 1 when there is one.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Static imports and re-exports, `import type` included (dynamic imports are not edges). */
const edgePattern = /(?:^|\n)\s*(?:import|export)\s(?:type\s)?[^;'"]*?from\s+['"]([^'"]+)['"]/g;
const sideEffectPattern = /(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The project files `file` imports (relative specifiers only; packages are not part of the graph). */
function edgesOf(file: string, known: ReadonlySet<string>): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(edgePattern), ...source.matchAll(sideEffectPattern)].map(
    (m) => m[1]!,
  );
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s))
    .filter((target) => known.has(target));
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Every import circle under `dir`, each as the sorted paths of its files relative to `dir`. */
export function findImportCycles(dir: string): string[][] {
  const files = tsFiles(dir);
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, edgesOf(file, known)] as const));
  return circles(graph).map((component) => component.map((file) => relative(dir, file)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? 'src');
  const found = findImportCycles(dir);
  for (const circle of found)
    process.stderr.write(`import circle (type-only imports count): ${circle.join(' ↔ ')}\n`);
  if (found.length > 0) process.exit(1);
}
