import { echoLine } from '../../scripts/schemathesis-output';

// What schemathesis 4.32 printed at the end of a CI run (stops 11 and 12 were read as "ran no
// test" because of its last banner).
const tail = [
  '=================================== WARNINGS ===================================',
  'Authentication failed: 1 operation returned only 401/403 responses',
  '=================================== SUMMARY ====================================',
  'Test cases:',
  '  3138 generated, 3138 passed, 42 skipped',
  '============================= 3 warnings in 59.25s =============================',
  '=============================== 2 failures, 1 warning in 12.5s ===============================',
  '========================= No issues found in 8.02s =========================',
];

/** What a pytest result reader would take for a closing line (with or without its `=` rule). */
const pytestLike = (line: string) => /^=+ .+ =+$/.test(line) || /\bin [\d.]+s\b/.test(line);

describe('the fuzz run echoes schemathesis without pytest-like lines', () => {
  it('keeps section titles, drops closing banners, keeps every other line as it is', () => {
    const echoed = tail.map(echoLine);
    expect(echoed).toEqual([
      '── WARNINGS ──',
      'Authentication failed: 1 operation returned only 401/403 responses',
      '── SUMMARY ──',
      'Test cases:',
      '  3138 generated, 3138 passed, 42 skipped',
      null,
      null,
      null,
    ]);
    expect(echoed.filter((l): l is string => l !== null).filter(pytestLike)).toEqual([]);
  });
});
