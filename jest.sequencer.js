// Longest test files first, so the CI workers finish together. Jest orders by the durations in
// its cache, but a fresh CI clone has none and falls back to file size, which started the two
// slowest files (short files that run a whole stack or `npm run bench`) last: one worker ran them
// alone for minutes while the other sat idle. Without a cached time, a file's seconds in test/groups/seconds.json are used.
const Sequencer = require('@jest/test-sequencer').default;

// Seconds per file from a CI run (test/groups/seconds.json); a group entry sums its members'.
const { expectedSeconds } = require('./test/groups/plan.js');

class LongestFirstSequencer extends Sequencer {
  /** Milliseconds: the cached duration, else the table's, else none. */
  expected(test) {
    const cached = this.time(test);
    if (cached != null) return cached;
    const seconds = expectedSeconds(test.path);
    return seconds != null ? seconds * 1000 : null;
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
