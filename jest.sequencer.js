// Longest test files first, so the two CI workers finish together. Jest orders by the durations in
// its cache, but a fresh CI clone has none and falls back to file size, which started the two
// slowest files (short files that run a whole stack or `npm run bench`) last: one worker ran them
// alone for minutes while the other sat idle. Without a cached time, a file's seconds below are used.
const Sequencer = require('@jest/test-sequencer').default;

/**
 * Seconds per file in a CI run of `bash .ci/run` (2 workers on 2 cores), the files over about 20 s,
 * as jest prints them; statements, webhook-money-path and provider-health have been made shorter
 * since. A rough order is all that matters; a file missing here runs after them, largest first.
 */
const CI_SECONDS = {
  'test/integration/doc-examples.test.ts': 126,
  'test/integration/statements.test.ts': 106,
  'test/e2e/dashboard.browser.test.ts': 82,
  'test/integration/bench-small.test.ts': 76,
  'test/integration/operator-ambiguity.test.ts': 68,
  'test/integration/webhook-replay-race.property.test.ts': 63,
  'test/integration/payout-batch-interleavings.property.test.ts': 63,
  'test/integration/payout-cancel-race.property.test.ts': 58,
  'test/integration/provider-health.test.ts': 54,
  'test/integration/tenant-safety.test.ts': 51,
  'test/integration/webhook-money-path.test.ts': 51,
  'test/integration/payin-lifecycle.test.ts': 44,
  'test/integration/reconciliation.test.ts': 42,
  'test/integration/reconciliation-correction.test.ts': 39,
  'test/integration/cli.test.ts': 38,
  'test/integration/ferretdb-postgres.test.ts': 38,
  'test/integration/dashboard-cli.test.ts': 38,
  'test/integration/read-chain-windows.property.test.ts': 35,
  'test/integration/webhook-ssrf.test.ts': 35,
  'test/integration/statement-race.property.test.ts': 30,
  'test/workflows/refund/payin-refunds.test.ts': 27,
  'test/unit/msisdn-pattern.test.ts': 23,
  'test/workflows/payout/payout-hold.test.ts': 21,
};

class LongestFirstSequencer extends Sequencer {
  /** Milliseconds: the cached duration, else the table's, else none. */
  expected(test) {
    const cached = this.time(test);
    if (cached != null) return cached;
    const rel = require('node:path').relative(test.context.config.rootDir, test.path).split('\\').join('/');
    return CI_SECONDS[rel] != null ? CI_SECONDS[rel] * 1000 : null;
  }

  sort(tests) {
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    const keyed = tests.map((test) => ({ test, failed: this.hasFailed(test), ms: this.expected(test) }));
    keyed.sort((a, b) => {
      // As jest does: last run's failures first, for early feedback.
      if (a.failed !== b.failed) return a.failed ? -1 : 1;
      // Known durations before unknown ones: the unknown are mostly the short files.
      if ((a.ms == null) !== (b.ms == null)) return a.ms == null ? 1 : -1;
      if (a.ms != null && b.ms != null && a.ms !== b.ms) return b.ms - a.ms;
      return size(b.test) - size(a.test);
    });
    return keyed.map((k) => k.test);
  }
}

module.exports = LongestFirstSequencer;
