// The architecture's import rules (eslint.boundaries.js) fail on forbidden imports and circles, and
// the tree as it is has none. Runs ESLint with only those rules, so it needs no type information.

import { expect } from 'chai';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { boundaries } from '../../eslint.boundaries.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
  },
  ...boundaries,
];
const linter = (cwd: string) => new ESLint({ cwd, overrideConfigFile: true, overrideConfig: config });

/** The boundary messages for `source` placed at `path` in the tree. */
async function lint(path: string, source: string): Promise<string[]> {
  const [result] = await linter(repo).lintText(source, { filePath: join(repo, path) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('import rules between src/ folders', () => {
  const forbidden: [string, string, string][] = [
    ['src/events/x.ts', "import type { Config } from '../io/config/schema.ts';", 'imports nothing'],
    ['src/events/x.ts', "import { readFileSync } from 'node:fs';", 'no IO libraries'],
    ['src/projections/registry/x.ts', "import pg from 'pg';", 'no IO libraries'],
    ['src/projections/filter/x.ts', "import { readFileSync } from 'node:fs';", 'no IO libraries'],
    ['src/projections/filter/x.ts', "import { createRequire } from 'node:module';", 'no IO libraries'],
    ['src/projections/registry/x.ts', "import { x } from '../../io/logger.ts';", 'only src/events'],
    ['src/projections/registry/x.ts', "import { createApp } from '../../app.ts';", 'only src/events'],
    [
      'src/io/opamp/x.ts',
      "import type { Jobs } from '../../persistence/jobs/jobs.ts';",
      'src/io imports only',
    ],
    ['src/persistence/agents/x.ts', "import { x } from '../../telemetry/telemetry.ts';", 'never imports web'],
    ['src/persistence/x.ts', "import { x } from '../web/uiApp.ts';", 'never imports web'],
    ['src/web/api/x.ts', "import { x } from '../../io/opamp/handler.ts';", 'never imports telemetry'],
    ['src/web/x.ts', "import { x } from '../telemetry/telemetry.ts';", 'never imports telemetry'],
    ['src/telemetry/x.ts', "import { x } from '../io/opamp/handler.ts';", 'src/telemetry is fed'],
    ['src/telemetry/x.ts', "import { x } from '../web/auth.ts';", 'src/telemetry is fed'],
    ['src/telemetry/x.ts', "import { x } from '../fleetCore.ts';", 'src/telemetry is fed'],
  ];
  for (const [path, source, reason] of forbidden) {
    it(`refuses in ${path}: ${source}`, async () => {
      const messages = await lint(path, source);
      expect(messages).to.have.length(1);
      expect(messages[0]).to.include('no-restricted-imports').and.include(reason);
    });
  }

  it('refuses process.env outside the entry point', async () => {
    const messages = await lint('src/io/opamp/x.ts', 'export const home = process.env.HOME;');
    expect(messages).to.have.length(1);
    expect(messages[0]).to.include('no-restricted-properties').and.include('only src/main.ts');
    expect(await lint('src/main.ts', 'export const home = process.env.HOME;')).to.deep.equal([]);
  });

  const allowed: [string, string][] = [
    ['src/projections/registry/x.ts', "import type { FleetEvent } from '../../events/fleetEvent.ts';"],
    // A pure library is not IO.
    ['src/projections/filter/x.ts', "import { RE2JS } from 're2js';"],
    ['src/io/opamp/x.ts', "import { decideAgent } from '../../projections/agent/decideAgent.ts';"],
    ['src/persistence/x.ts', "import type { Config } from '../io/config/schema.ts';"],
    ['src/web/api/x.ts', "import type { Jobs } from '../../persistence/jobs/jobs.ts';"],
    ['src/telemetry/x.ts', "import type { Registry } from '../projections/registry/registryProjection.ts';"],
    ['src/app.ts', "import { createTelemetry } from './telemetry/telemetry.ts';"],
  ];
  for (const [path, source] of allowed) {
    it(`allows in ${path}: ${source}`, async () => {
      expect(await lint(path, source)).to.deep.equal([]);
    });
  }

  it('refuses an import circle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-lint-'));
    try {
      mkdirSync(join(dir, 'src/io'), { recursive: true });
      writeFileSync(join(dir, 'src/io/a.ts'), "import { b } from './b.ts';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'src/io/b.ts'), "import { a } from './a.ts';\nexport const b = () => a;\n");
      const results = await linter(dir).lintFiles(['src/io/a.ts']);
      expect(results[0]!.messages.map((m) => m.ruleId)).to.deep.equal(['import-x/no-cycle']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds no forbidden import and no circle in the tree', async function () {
    this.timeout(60_000);
    const results = await linter(repo).lintFiles(['src']);
    const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`));
    expect(problems).to.deep.equal([]);
    expect(results.length).to.be.greaterThan(100);
  });
});
