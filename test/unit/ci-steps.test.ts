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
});
