import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// The layers, as import rules: domain <- contract <- services/activities <- API/workflows wiring.
// Each folder lists what it may not import; a lower layer reaching up fails the build. Kept apart
// from eslint.config.mjs (which spreads them) so test/unit/layer-rules.test.ts can lint fixtures
// with these rules alone (no type information: fast).

/** A relative import reaching one of these top-level folders (`../api/x`, `../../src/api`); `./x` stays in its folder. */
const reaching = (folders) => `^(?:\\.\\./)+(?:src/)?(?:${folders.join('|')})(?:/|\\.ts$|$)`;

const above = {
  // Everything of ours that is not the domain.
  domain: [
    'contract',
    'services',
    'api',
    'persistence',
    'activities',
    'workflows',
    'temporal',
    'ledger',
    'checkout',
    'events',
    'webhooks',
    'reconciliation',
    'recovery',
    'operators',
    'merchants',
    'security',
    'infra',
    'simulator',
    'cli',
    'client',
    'main',
    'config',
  ],
};

const rule = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const noApi = {
  regex: reaching(['api']),
  message: 'Only the Express layer imports src/api: take the schema, record or problem from src/contract.',
};
const noMain = {
  regex: reaching(['main']),
  message:
    'src/main is the composition root: nothing below it imports it (receive what you need as a dependency).',
};

export const layerRules = [
  {
    files: ['src/domain/**/*.ts'],
    rules: rule([
      {
        regex: reaching(above.domain),
        message: 'The domain imports only the domain (and libraries): it is the bottom layer.',
      },
    ]),
  },
  {
    files: ['src/contract/**/*.ts'],
    rules: rule([
      {
        // The event catalogue (zod only) and the statement cursor codec (pure) are interface facts
        // that still live beside their owners; nothing else of ours above the domain is allowed.
        regex: reaching(
          above.domain
            .filter((f) => f !== 'contract' && f !== 'events' && f !== 'ledger')
            .concat(['events(?!/catalogue(?:\\.ts)?$)', 'ledger(?!/cursor(?:\\.ts)?$)']),
        ),
        message: 'The contract imports only the domain (and zod, libraries).',
      },
      {
        group: ['express', 'mongoose', '@temporalio/*', 'ws', 'pino'],
        message: 'The contract states the interface; I/O and frameworks belong to the layers above.',
      },
    ]),
  },
  {
    // Services and everything they build on: never the HTTP layer, never the composition root.
    files: [
      'src/services/**/*.ts',
      'src/checkout/**/*.ts',
      'src/ledger/**/*.ts',
      'src/persistence/**/*.ts',
      'src/events/**/*.ts',
      'src/webhooks/**/*.ts',
      'src/reconciliation/**/*.ts',
      'src/recovery/**/*.ts',
      'src/operators/**/*.ts',
      'src/merchants/**/*.ts',
      'src/security/**/*.ts',
      'src/infra/**/*.ts',
    ],
    rules: rule([noApi, noMain]),
  },
  {
    // Activities run workflow steps; importing a workflow module (even for a type) ties the two
    // bundles together and closes import cycles: shared message types live in their own module.
    files: ['activities/**/*.ts'],
    rules: rule([
      noApi,
      noMain,
      {
        regex: reaching(['workflows']),
        message:
          'Activities never import a workflow module (shared types go beside the activity or in src/).',
      },
    ]),
  },
  {
    files: ['src/api/**/*.ts', 'src/simulator/**/*.ts', 'src/client/**/*.ts', 'src/config.ts'],
    rules: rule([noMain]),
  },
  {
    // Temporal's plumbing (client, codec, ids, starts) sits below the API; the codec server's HTTP
    // app is the API's (src/api/codec-server.ts).
    files: ['src/temporal/**/*.ts'],
    rules: rule([noApi, noMain]),
  },
];

/** No import cycles in the code that runs (a cycle makes load order decide what a module sees). */
export const noCycle = {
  files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
  plugins: { 'import-x': importX },
  settings: {
    // Without .ts here import-x skips every TypeScript dependency, and finds no cycle at all.
    'import-x/extensions': ['.ts', '.js'],
    'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
  },
  rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
};

export default layerRules;
