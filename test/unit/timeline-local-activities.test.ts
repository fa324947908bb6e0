import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stepsOf } from '../../src/cli/timeline';
import { repoRoot } from '../../src/infra/tools';
import { historyFromJson } from '../helpers/history-json';

// `payments transactions show` reads a payin's steps from its history: a local activity is a marker
// there (workflows/shared/activity-proxies.ts, localFirst), and its step must show as an activity does.
it('a local activity shows as its step, with its outcome', () => {
  const file = join(repoRoot, 'test/golden/payinWorkflow-direct-completed-local.json');
  const history = historyFromJson(JSON.parse(readFileSync(file, 'utf8')));
  const steps = stepsOf(history.events ?? []);
  const names = steps.map((s) => s.step);
  expect(names).toEqual(expect.arrayContaining(['requestCollection', 'readCollectionAndSettle']));
  const request = steps.find((s) => s.step === 'requestCollection')!;
  expect(request.outcome).toMatch(/^completed: \{"outcome":"pending".*\(local\)$/);
});
