// ESLint: typescript-eslint's type-checked rules, plus the boundary that keeps IO out of the pure core.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioModules = ['node:*', 'pg', 'pg-*', 'ws', 'koa', '@koa/*', 'protobufjs', 'prom-client', 'pino'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'static/**', 'artifacts/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/events/**/*.ts', 'src/projections/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ioModules, message: 'events and projections are pure: no IO libraries here' },
            {
              group: ['**/io/**', '**/web/**', '**/persistence/**'],
              message: 'the core does not import the edges',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['spec/**/*.ts', 'tools/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-expressions': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
