import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '../../src/infra/tools';
import { operatorCodes } from './operator-books';

// The fault suite's last step (test/faults/faults.test.ts): the real `payments reconcile` CLI run
// against the operator's statements for every operator and day of the run, and what it found.

/** What `payments reconcile --json` prints (src/reconciliation/types.ts), as far as the suite reads it. */
interface CliReport {
  totals: Record<string, number>;
  needsPerson: boolean;
  findings: {
    class: string;
    kind: string;
    id: string;
    action: string;
    needsPerson: boolean;
    detail: string;
  }[];
}

export interface Reconciliation {
  available: boolean;
  /** Findings that need a person (or runs that failed): must be 0. */
  unexplained: number;
  /** Every finding by class and the action taken, corrections included ("found on the way"). */
  findings: Record<string, number>;
  runs: {
    operator: string;
    date: string;
    exitCode: number;
    totals: Record<string, number> | null;
    findings: CliReport['findings'];
    output?: string;
  }[];
}

/** `payments reconcile` for every operator and day of the run, when the CLI has it. */
export async function reconcile(
  workerEnv: NodeJS.ProcessEnv,
  simulatorUrl: string,
  startedAt: number,
): Promise<Reconciliation> {
  const run = promisify(execFile);
  const env = { ...workerEnv, OPERATOR_BASE_URL: simulatorUrl, LOG_LEVEL: 'silent' };
  const cli = (args: string[]) =>
    run(process.execPath, ['bin/payments.js', ...args], {
      cwd: repoRoot,
      env,
      timeout: 120_000,
      maxBuffer: 64 << 20,
    }).then(
      (r) => ({ exitCode: 0, stdout: r.stdout, stderr: r.stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({
        exitCode: typeof err.code === 'number' ? err.code : 1,
        stdout: err.stdout ?? '',
        stderr: err.stderr ?? '',
      }),
    );
  // Commander answers `<unknown> --help` with the program's help: look for the command in it.
  const help = await cli(['--help']);
  const none: Reconciliation = { available: false, unexplained: 0, findings: {}, runs: [] };
  if (!/^\s+reconcile\b/m.test(help.stdout)) return none;
  const result: Reconciliation = { ...none, available: true };
  const days = new Set([
    new Date(startedAt).toISOString().slice(0, 10),
    new Date().toISOString().slice(0, 10),
  ]);
  for (const operator of operatorCodes)
    for (const date of days) {
      const out = await cli(['reconcile', '--operator', operator, '--date', date, '--json']);
      let report: CliReport | null = null;
      try {
        report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as CliReport;
      } catch {
        // not a report: the error is in the output kept below
      }
      const findings = (report?.findings ?? []).map((f) => ({
        class: f.class,
        kind: f.kind,
        id: f.id,
        action: f.action,
        needsPerson: f.needsPerson,
        detail: f.detail,
      }));
      for (const f of findings)
        result.findings[`${f.class} (${f.action})`] = (result.findings[`${f.class} (${f.action})`] ?? 0) + 1;
      // Exit 2: a finding needs a person; any other failure is the CLI's own, unexplained too.
      const unexplained =
        out.exitCode === 0 ? 0 : report ? Math.max(1, findings.filter((f) => f.needsPerson).length) : 1;
      result.unexplained += unexplained;
      result.runs.push({
        operator,
        date,
        exitCode: out.exitCode,
        totals: report?.totals ?? null,
        findings: findings.filter((f) => f.needsPerson || out.exitCode !== 0),
        ...(report ? {} : { output: `${out.stdout}${out.stderr}`.slice(-2000) }),
      });
    }
  return result;
}
