import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkPatches, type Source } from '../helpers/patches-policy';
import { isPatched, patchDoors, patches, policyDates, type PatchTable } from '../../workflows/shared/patches';

// The versioning policy (docs/versioning.md): every patch has a row in workflows/shared/patches.ts, and its
// dates are kept. First on a fixture table (the example row of workflows/shared/patches.ts), then on the
// real table and the real workflows/ sources, with today's date.

const row = {
  change: "Before sending, a payout asks its provider's health and holds while it is down.",
  workflows: ['payoutWorkflow'],
  shipped: '2027-01-10',
  deprecateFrom: '2027-02-01',
  removeFrom: '2027-02-23',
} as const;
const fixture = { 'payout-asks-provider-health': row } satisfies PatchTable;

const payout = (body: string): Source => ({
  path: 'workflows/payout.ts',
  text: `import { isPatched, deprecated } from './patches';\nexport async function payoutWorkflow() {\n${body}\n}\n`,
});
const asksPatched = payout(`  // Old payouts (before the hold) send at once: patched() decides.
  if (isPatched('payout-asks-provider-health')) await hold();`);
const asksDeprecated = payout(`  deprecated('payout-asks-provider-health');\n  await hold();`);

describe('the versioning policy on a fixture table', () => {
  it('gives deprecateFrom = shipped + longest run + retention, and removeFrom the same period later', () => {
    expect(policyDates(row)).toEqual({ deprecateFrom: '2027-02-01', removeFrom: '2027-02-23' });
    expect(policyDates({ ...row, deprecated: '2027-03-01' }).removeFrom).toBe('2027-03-23');
  });

  it('accepts a patch before its deprecateFrom date (comments naming patched() do not count)', () => {
    expect(checkPatches(fixture, '2027-01-31', [asksPatched])).toEqual([]);
  });

  it('fails once a row is past deprecateFrom and the workflow still calls isPatched()', () => {
    const problems = checkPatches(fixture, '2027-02-01', [asksPatched]);
    expect(problems).toEqual([expect.stringContaining('past its deprecateFrom date (2027-02-01)')]);
    expect(problems[0]).toContain("deprecated('payout-asks-provider-health')");
    expect(problems[0]).toContain('workflows/payout.ts:4');
  });

  it('accepts the deprecated patch, with its deploy day, until removeFrom', () => {
    const deprecatedRow = { ...row, deprecated: '2027-02-03', removeFrom: '2027-02-25' };
    const table = { 'payout-asks-provider-health': deprecatedRow } satisfies PatchTable;
    expect(checkPatches(table, '2027-02-24', [asksDeprecated])).toEqual([]);
    expect(checkPatches(table, '2027-02-25', [asksDeprecated])).toEqual([
      expect.stringContaining('past its removeFrom date (2027-02-25)'),
    ]);
  });

  it('fails when the row and the code disagree about the deprecation', () => {
    expect(checkPatches(fixture, '2027-02-02', [asksDeprecated])).toEqual([
      expect.stringContaining("its row has no 'deprecated' date"),
    ]);
    const early = { ...row, deprecated: '2027-01-20', removeFrom: '2027-02-11' };
    expect(checkPatches({ 'payout-asks-provider-health': early }, '2027-01-21', [asksDeprecated])).toEqual([
      expect.stringContaining('before its deprecateFrom'),
    ]);
  });

  it('fails when a row is past removeFrom, whatever the code does', () => {
    expect(checkPatches(fixture, '2027-02-23', [asksPatched])).toEqual([
      expect.stringContaining('past its removeFrom date (2027-02-23)'),
    ]);
  });

  it('fails on dates that are not the policy', () => {
    const table = { 'payout-asks-provider-health': { ...row, deprecateFrom: '2027-01-15' } };
    expect(checkPatches(table, '2027-01-11', [asksPatched])).toEqual([
      expect.stringContaining('the policy gives deprecateFrom 2027-02-01 and removeFrom 2027-02-23'),
    ]);
  });

  it('fails on a direct patched()/deprecatePatch(), an id without a row and a row nobody uses', () => {
    const direct: Source = {
      path: 'workflows/refund.ts',
      text: `import { patched, deprecatePatch as dp } from '@temporalio/workflow';
if (patched('refund-x')) dp('refund-y');
if (isPatched('refund-z')) {}`,
    };
    const problems = checkPatches(fixture, '2027-01-11', [direct]);
    expect(problems).toEqual([
      expect.stringMatching(/^workflows\/refund\.ts:1 imports patched\(\)/),
      expect.stringMatching(/^workflows\/refund\.ts:1 imports deprecatePatch\(\)/),
      expect.stringMatching(/^workflows\/refund\.ts:2 calls patched\(\) directly/),
      expect.stringMatching(/^workflows\/refund\.ts:3 asks about patch 'refund-z', which has no row/),
      "Patch 'payout-asks-provider-health' has a row but no workflow asks about it: delete the row.",
    ]);
  });

  it('types the doors to the table: an id without a row does not compile', () => {
    const doors = patchDoors(fixture);
    // Never called (patched() needs a workflow); `tsc` checks these lines.
    const typed = () => {
      doors.isPatched('payout-asks-provider-health');
      // @ts-expect-error no row for this id
      doors.isPatched('payout-unknown');
      // @ts-expect-error the real table is empty at 1.0: no id compiles
      isPatched('payout-asks-provider-health');
    };
    expect(typeof typed).toBe('function');
  });
});

describe('the versioning policy on workflows/', () => {
  const root = join(__dirname, '../..');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );

  it("holds today: every patch has a row, no row is past its dates, Temporal's API only through patches.ts", () => {
    const sources = files(join(root, 'workflows')).map((f) => ({
      path: relative(root, f).split('\\').join('/'),
      text: readFileSync(f, 'utf8'),
    }));
    const today = new Date().toISOString().slice(0, 10);
    expect(checkPatches(patches, today, sources)).toEqual([]);
  });
});
