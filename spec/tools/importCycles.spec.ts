// The circle check counts the import edges ESLint's no-cycle erases: type-only imports.

import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findImportCycles } from '../../tools/importCycles.ts';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

describe('import circle check', () => {
  const made: string[] = [];
  const at = (files: Record<string, string>) => {
    const dir = tree(files);
    made.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('finds a circle made only of type-only imports', () => {
    const dir = at({
      'a/codec.ts': "import type { Reader } from './reader.ts';\nexport type Codec = { r: Reader };\n",
      'a/reader.ts': "import type { Codec } from './codec.ts';\nexport type Reader = { c?: Codec };\n",
    });
    expect(findImportCycles(dir)).to.deep.equal([['a/codec.ts', 'a/reader.ts']]);
  });

  it('finds a circle through a re-export and across folders', () => {
    const dir = at({
      'jobs/store.ts': "export { byStage } from '../stages/byStage.ts';\n",
      'stages/byStage.ts': "import { type Store } from '../jobs/store.ts';\nexport const byStage = 1;\n",
      'other.ts': "import { byStage } from './stages/byStage.ts';\n",
    });
    expect(findImportCycles(dir)).to.deep.equal([['jobs/store.ts', 'stages/byStage.ts']]);
  });

  it('passes a tree whose imports all point one way', () => {
    const dir = at({
      'events/e.ts': 'export type E = 1;\n',
      'projections/p.ts': "import type { E } from '../events/e.ts';\nexport const p = (e: E) => e;\n",
      'io/i.ts': "import { p } from '../projections/p.ts';\nimport 'pg';\nexport const i = p;\n",
    });
    expect(findImportCycles(dir)).to.deep.equal([]);
  });

  it('finds no circle in src/', () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    expect(findImportCycles(src)).to.deep.equal([]);
  });
});
