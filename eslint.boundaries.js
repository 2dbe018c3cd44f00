// The architecture as lint rules (README "Architecture"): which folder of src/ may import which.
// Layers, from the bottom: events → projections → io → persistence → web | telemetry → the
// composition root (the files directly in src/: app.ts, agentIdentity.ts, fleetCore.ts,
// listeners.ts, main.ts). A folder imports only folders below it; web and telemetry are siblings and never import each other, nor the OpAMP listener
// (src/io/opamp), which only the core factory wires. events and projections stay pure: no IO
// libraries. import-x/no-cycle forbids run-time import circles anywhere in src/; it does not count
// type-only imports, so `npm run lint` also runs tools/importCycles.ts, which does.
// spec/lint/boundaries.spec.ts shows each rule failing on a fixture.

import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// Every node: module counts: the pure core (events, projections) imports nothing from Node.
const ioLibraries = ['node:*', 'pg', 'pg-*', 'ws', 'koa', '@koa/*', 'protobufjs', 'prom-client', 'pino'];
const root = ['**/app.ts', '**/agentIdentity.ts', '**/fleetCore.ts', '**/listeners.ts', '**/main.ts'];
const folder = (name) => [`**/${name}/**`, `../${name}/**`];

/** One block per folder: the imports it must not make, with the reason shown in the lint error. */
const layers = [
  {
    files: ['src/events/**/*.ts'],
    forbidden: [
      { group: ioLibraries, message: 'events are pure data: no IO libraries' },
      { group: ['../**'], message: 'src/events imports nothing of the project' },
    ],
  },
  {
    files: ['src/projections/**/*.ts'],
    forbidden: [
      { group: ioLibraries, message: 'projections are pure folds: no IO libraries' },
      {
        group: [...folder('io'), ...folder('persistence'), ...folder('web'), ...folder('telemetry'), ...root],
        message: 'src/projections imports only src/events',
      },
    ],
  },
  {
    files: ['src/io/**/*.ts'],
    forbidden: [
      {
        group: [...folder('persistence'), ...folder('web'), ...folder('telemetry'), ...root],
        message: 'src/io imports only src/events and src/projections',
      },
    ],
  },
  {
    files: ['src/persistence/**/*.ts'],
    forbidden: [
      {
        group: [...folder('web'), ...folder('telemetry'), ...root],
        message: 'src/persistence never imports web or telemetry: declare a port and let the root bind it',
      },
    ],
  },
  {
    files: ['src/telemetry/**/*.ts'],
    forbidden: [
      {
        group: [...folder('web'), ...folder('persistence'), '**/io/opamp/**', ...root],
        message:
          'src/telemetry is fed by events and projections; it imports neither web, persistence nor io/opamp',
      },
    ],
  },
  {
    files: ['src/web/**/*.ts'],
    forbidden: [
      {
        group: [...folder('telemetry'), '**/io/opamp/**', ...root],
        message: 'src/web never imports telemetry or the OpAMP listener (io/opamp)',
      },
    ],
  },
];

export const boundaries = [
  ...layers.map(({ files, forbidden }) => ({
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: forbidden }],
    },
  })),
  {
    // The environment reaches the service through the entry point only (main.ts hands it to the
    // config loader and the build identity), so no module depends on a global.
    files: ['src/**/*.ts'],
    ignores: ['src/main.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'only src/main.ts reads the environment; take what you need from the config',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
];
