// Type-aware linting; workflows/ must stay deterministic, so Node built-ins and I/O
// libraries are banned there (they belong in activities/). Date.now is deterministic inside
// Temporal's workflow sandbox; for randomness (jitter) we ask for uuid4() so it reads as intended.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioModules = [
  'mongoose',
  'express',
  'pino',
  'ws',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'sdk/*/dist/**',
      'sdk/*/vendor/**',
      'coverage/**',
      '.data/**',
      'test-results/**',
      'bench-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.js', 'scripts/*/*.js', 'bin/*.js'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON bodies loosely and assert on them; the unsafe-any family only adds noise there.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The hosted checkout page's script runs in the customer's browser as a classic script: browser
    // globals only (Node's are switched off), no modules.
    files: ['src/checkout/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        process: 'off',
        require: 'off',
        module: 'off',
        __dirname: 'off',
      },
    },
  },
  {
    // Authorization by construction (src/api/routing.ts): a route is registered with route(), whose
    // key is a row of src/contract/access/routes.ts and whose guard runs first; routers are newRouter().
    files: [
      'src/api/routes/**/*.ts',
      'src/dashboard/routes/**/*.ts',
      'src/dashboard/app.ts',
      'src/api/observability.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(get|post|put|patch|delete|all|head|options|route)$/][callee.object.name=/(^|[rR])outer$|^api$|^app$/]",
          message:
            "Register routes with route(router, 'METHOD /path', ...) (src/api/routing.ts): the key is a row of the route table, and its guard runs first.",
        },
        {
          selector: "CallExpression[callee.name='Router'], CallExpression[callee.property.name='Router']",
          message: 'Use newRouter() (src/api/routing.ts): strict, case-sensitive routing.',
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/workflow',
              importNames: ['patched', 'deprecatePatch'],
              message:
                'Use isPatched()/deprecated() from workflows/shared/patches.ts, with a row for the id (docs/versioning.md).',
            },
          ],
          patterns: [
            {
              group: ['node:*'],
              message: 'Workflows are deterministic: no Node built-ins (use activities).',
            },
            {
              group: ['fs', 'path', 'http', 'https', 'net', 'crypto', 'child_process', 'os', 'dns'],
              message: 'Workflows are deterministic: no Node built-ins (use activities).',
            },
            { group: ioModules, message: 'Workflows do no I/O: call an activity.' },
            {
              group: ['../../src/persistence/*', '../../src/api/*', '../../activities/**'],
              message: 'Workflows import only workflow-safe code (types excepted).',
              allowTypeImports: true,
            },
            {
              // These folders start, schedule or sweep workflows: a workflow importing them closes a
              // folder cycle. What both sides need lives in workflows/ or src/domain; the workflow ids
              // and search attribute keys (pure modules every side uses) are the exceptions.
              group: [
                '../../src/temporal/*',
                '!../../src/temporal/workflow-ids',
                '!../../src/temporal/search-attributes',
                '../../src/recovery/*',
                '../../src/reconciliation/*',
                '../../src/main/*',
              ],
              message:
                'Workflows sit above Temporal plumbing, recovery and reconciliation: move the shared piece to workflows/ or src/domain.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'fetch', message: 'Workflows do no I/O.' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Math',
          property: 'random',
          message: 'Deterministic: use uuid4() from @temporalio/workflow.',
        },
      ],
    },
  },
);
