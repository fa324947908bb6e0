// How `npm run fuzz` echoes schemathesis to the console. schemathesis closes with a pytest-style
// banner ("=== 3 warnings in 59.25s ==="); CI's result reader takes such a line for a pytest run
// that executed no test and ignores the plain total .ci/run prints after it. So banners are
// echoed without the `=` rule, and the closing one (its figures are in our own summary line) is
// left out. The raw output, banners included, is kept in bench-results/fuzz-<time>.log.

const BANNER = /^=+ (.+?) =+$/;
/** A closing banner: counts and the time, "3 warnings in 59.25s", "1 passed, 2 failures in 4.1s". */
const CLOSING = /\bin [\d.]+s$/;

/** The line to echo for one line of schemathesis' output, or null to leave it out. */
export function echoLine(line: string): string | null {
  const banner = BANNER.exec(line.trimEnd());
  if (!banner) return line;
  const title = banner[1]!.trim();
  return CLOSING.test(title) ? null : `── ${title} ──`;
}
