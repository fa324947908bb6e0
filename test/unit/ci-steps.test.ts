import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// .ci/run prints one `ci: step <name> <seconds>s` line per step, and a failed step still gets its
// line and stops the run with its exit code (issue 42: the closing note reports the step times).
describe('.ci/run step times', () => {
  const script = `
    set -euo pipefail
    eval "$(sed -n '/^steps=()/p;/^step() {/,/^}/p;/^tee_to() {/,/^}/p' "$CI_RUN")"
    log=$(mktemp)
    step quick tee_to "$log" bash -c 'echo output'
    step failing tee_to "$log" bash -c 'exit 3'
    echo unreachable`;
  const run = () =>
    spawnSync('bash', ['-c', script], {
      env: { ...process.env, CI_RUN: join(__dirname, '../../.ci/run') },
      encoding: 'utf8',
    });

  it('prints a line per step, the failed one included, and stops on the failure', () => {
    const { status, stdout } = run();
    expect(stdout.split('\n').filter((l) => l.startsWith('ci: step '))).toEqual([
      expect.stringMatching(/^ci: step quick \d+s$/),
      expect.stringMatching(/^ci: step failing \d+s$/),
    ]);
    expect(stdout).toContain('output');
    expect(stdout).not.toContain('unreachable');
    expect(status).toBe(3);
  });

  // A background step (`background NAME CMD…`, `finish NAME [keep]`): its output is shown when it is
  // finished, kept with the tests' output on `keep`, and its failure fails the run with its line.
  const backgroundScript = `
    set -euo pipefail
    eval "$(sed -n '/^steps=()/p;/^declare -A bg_pid/p;/^background() {/,/^}/p;/^finish() {/,/^}/p' "$CI_RUN")"
    logdir=$(mktemp -d)
    log="$logdir/tests"
    background kept bash -c 'echo Tests: 2 passed'
    background failing bash -c 'echo why; exit 4'
    finish kept keep
    grep -q '^Tests: 2 passed' "$log" && echo kept-in-log
    finish failing
    echo unreachable`;

  it("shows a background step's output at its finish, with its line, and stops on its failure", () => {
    const { status, stdout, stderr } = spawnSync('bash', ['-c', backgroundScript], {
      env: { ...process.env, CI_RUN: join(__dirname, '../../.ci/run') },
      encoding: 'utf8',
    });
    const lines = stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('ci: step '))).toEqual([
      expect.stringMatching(/^ci: step kept \d+s$/),
      expect.stringMatching(/^ci: step failing \d+s$/),
    ]);
    expect(lines).toEqual(expect.arrayContaining(['Tests: 2 passed', 'kept-in-log', 'why']));
    expect(stderr).toContain('ci: step failing failed (exit 4)');
    expect(stdout).not.toContain('unreachable');
    expect(status).toBe(4);
  });
});
