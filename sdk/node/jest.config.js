// The Node SDK's suite (run by sdk/node/run-tests.sh against a running stack). Apart from the
// project's root jest config on purpose: the root `npm test` must not need the stack.
/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }] },
  // Sources import './x.js' (ESM output needs the extension); the tests run the TypeScript.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 90_000,
  maxWorkers: 2,
};
