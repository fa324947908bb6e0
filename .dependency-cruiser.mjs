// The import graph's shape, held by dependency-cruiser in `npm run lint` (decision:
// docs/decisions/architecture/layers-and-cycles.md). ONE declaration of the layers: the ladder
// below, lowest first. A module may import its own layer and the layers below it, never one above
// (types included: `import type` is an edge too). Folders, not files, make the layers, so a flow
// folder moved inside workflows/ or activities/ keeps its layer.

/** The ladder, lowest first: [layer, path patterns (from the repository's root)]. */
export const ladder = [
  ['domain', ['^src/domain/']],
  // The event catalogue (zod only) and the statement cursor codec (pure) are interface facts that
  // live beside their owners.
  ['contract', ['^src/contract/', '^src/events/catalogue\\.ts$', '^src/ledger/cursor\\.ts$']],
  // The ground everything may stand on: logging, metrics, tools, key rings, and the Temporal seam
  // (workflow ids, permanent errors, codec, failure converter, start-once, search attribute keys).
  ['ground', ['^src/infra/', '^src/security/', '^src/temporal/']],
  // Stores and the operators: what activities and services build on.
  [
    'stores',
    [
      '^src/persistence/',
      '^src/ledger/',
      '^src/events/',
      '^src/merchants/',
      '^src/operators/',
      '^src/webhooks/',
      '^src/statements/',
      '^src/reconciliation/',
      '^src/recovery/',
      '^src/request-log/',
      '^src/simulator/',
    ],
  ],
  ['activities', ['^activities/']],
  // Workflows import their activities' types (proxies), never the other way round.
  ['workflows', ['^workflows/']],
  // Services start and message workflows (by function reference, so the compiler checks them).
  ['services', ['^src/services/', '^src/checkout/']],
  // The doors: the HTTP API, then the dashboard's server (it reuses the API's problem rendering and
  // routing). The public router is composed once in
  // src/main and handed to both the API and the dashboard: the API never imports the dashboard.
  ['api', ['^src/api/', '^src/client/', '^src/config\\.ts$']],
  ['dashboard', ['^src/dashboard/']],
  // The composition roots and entry points: Temporal's connection, worker and runtime
  // (src/main/temporal), the wiring, the schedules; the CLI (bin/payments.js) composes its own.
  ['main', ['^src/main/', '^src/cli/']],
];

const any = (patterns) => patterns.map((p) => `(?:${p})`).join('|');

const climbing = ladder.slice(0, -1).map(([name, patterns], i) => ({
  name: `layer-${name}`,
  severity: 'error',
  comment: `The ${name} layer imports only its own layer and those below it (${ladder
    .slice(0, i)
    .map(([n]) => n)
    .join(', ')}): never ${ladder
    .slice(i + 1)
    .map(([n]) => n)
    .join(', ')}. Receive what you need from above as a dependency.`,
  from: { path: any(patterns) },
  // pathNot: a file declared in a lower layer inside a higher layer's folder (the event catalogue).
  to: {
    path: any(ladder.slice(i + 1).flatMap(([, p]) => p)),
    pathNot: any(ladder.slice(0, i + 1).flatMap(([, p]) => p)),
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...climbing,
    {
      name: 'contract-no-framework',
      severity: 'error',
      comment: 'The contract states the interface; I/O and frameworks belong to the layers above.',
      from: { path: '^src/contract/' },
      to: { path: '(?:^|/)node_modules/(?:express|mongoose|@temporalio/[^/]+|ws|pino)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle, type-only imports included: a cycle makes load order decide what a module sees.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // Type-only imports are edges too (an `import type` still ties two layers together).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
    cache: false,
  },
};
