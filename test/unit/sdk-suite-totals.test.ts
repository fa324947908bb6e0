import { echoSuiteLine, suiteTotals } from '../../scripts/test-sdks';

// npm run test:sdks reads each SDK suite's totals from its runner's own closing lines, so CI's
// closing "tests: N passed" line counts the PHP and Python tests too.

test('jest, several runs adding up', () => {
  const out = 'Tests:       3 passed, 3 total\n...\nTests:       1 failed, 1 skipped, 5 passed, 7 total\n';
  expect(suiteTotals(out)).toEqual({ passed: 8, failed: 1, skipped: 1 });
});

test('pytest, quiet or not, with colours', () => {
  expect(suiteTotals('....s.\n12 passed, 1 skipped in 3.21s\n')).toEqual({
    passed: 12,
    failed: 0,
    skipped: 1,
  });
  expect(
    suiteTotals('\u001b[31m==== 1 failed, 11 passed, 2 warnings, 1 error in 5.02s ====\u001b[0m'),
  ).toEqual({
    passed: 11,
    failed: 2,
    skipped: 0,
  });
});

test('PHPUnit, all passed or not', () => {
  expect(suiteTotals('Time: 00:01.2, Memory: 8 MB\n\nOK (42 tests, 120 assertions)\n')).toEqual({
    passed: 42,
    failed: 0,
    skipped: 0,
  });
  expect(suiteTotals('FAILURES!\nTests: 10, Assertions: 30, Failures: 1, Errors: 1, Skipped: 2.\n')).toEqual({
    passed: 6,
    failed: 2,
    skipped: 2,
  });
});

test('no total at all', () => {
  expect(suiteTotals('Test Suites: 1 passed, 1 total\nsomething else\n')).toBeNull();
});

test("pytest's closing lines are echoed reworded, so CI's reader does not take them for the run's result", () => {
  expect(echoSuiteLine('12 passed, 1 skipped in 3.21s')).toBe('── pytest: 12 passed, 1 skipped ──');
  expect(echoSuiteLine('=== 1 failed, 11 passed in 5.02s (0:00:05) ===')).toBe(
    '── pytest: 1 failed, 11 passed ──',
  );
  expect(echoSuiteLine('==== slowest 8 durations ====')).toBe('── slowest 8 durations ──');
  expect(echoSuiteLine('3.01s call     tests/test_flows.py::test_payin')).toBe(
    '3.01s call     tests/test_flows.py::test_payin',
  );
  expect(echoSuiteLine('Tests:       4 passed, 4 total')).toBe('Tests:       4 passed, 4 total');
});
