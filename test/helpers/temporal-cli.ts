import { temporalCliBuilt } from '../../src/infra/tools';

/**
 * CI builds the Temporal CLI beside the test files that do not need it (scripts/provision, .ci/run),
 * and jest runs the files that start it last (test/groups/plan.js). Such a file calls this first:
 * its hooks then start the CLI on their usual timeouts, after a build that may still be running.
 */
export function waitForTemporalCli(): void {
  beforeAll(() => temporalCliBuilt(), 15 * 60_000);
}
