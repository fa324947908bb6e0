// Unit tests need no server; integration tests share the FerretDB started by the global setup
// and spawn their own time-skipping Temporal test server per file.
const groups = require('./test/groups/plan.js');

// JEST_GROUPS=1 (CI) runs the unit, integration and workflow files in groups that share one module
// registry (test/groups/plan.js; docs/decisions/testing/grouped-test-files.md); without it each
// file runs by itself, so `npx jest <file>` finds it.
const grouped = process.env.JEST_GROUPS === '1';
const match = (project, perFile) => (grouped ? groups.testMatch(project) : perFile);

const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
};
/** @type {import('jest').Config} */
module.exports = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // One worker more than the two cores CI has: a file waits on its servers and timers about a third
  // of its time, and a third worker fills that wait (docs/decisions/testing/ci-layout.md).
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 3,
  // Longest files first even without jest's cache of timings (a fresh CI clone): jest.sequencer.js.
  testSequencer: '<rootDir>/jest.sequencer.js',
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: match('unit', ['<rootDir>/test/unit/**/*.test.ts']) },
    {
      ...common,
      displayName: 'integration',
      testMatch: match('integration', ['<rootDir>/test/integration/**/*.test.ts']),
      slowTestThreshold: 30,
    },
    // Workflows on the time-skipping server with stub activities (test/workflows/helpers).
    {
      ...common,
      displayName: 'workflows',
      testMatch: match('workflows', ['<rootDir>/test/workflows/**/*.test.ts']),
    },
    // The fault suite (npm run test:faults): opt-in, minutes long, on the real Temporal dev server.
    {
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      slowTestThreshold: 60,
    },
    // A real headless Chromium (scripts/provision-browser) on the hosted checkout page.
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      slowTestThreshold: 30,
    },
  ],
};
