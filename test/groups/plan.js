// Which test files run together in one jest module registry (a group), and which run alone.
// Jest gives every test file fresh modules: an integration file paid ~3.5 s of CPU to load the
// app, mongoose, the Temporal SDK and the rest before its first test, about a quarter of the run.
// A group entry (test/groups/<project>-NN.test.ts) requires its member files, each inside a
// describe named after it, so they load the modules once; each file still starts and stops its
// own stack. Plain CommonJS: jest.config.js and jest.sequencer.js read it without a transform.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '../..');

/** The projects whose files are grouped, and how many group entries each has (files in test/groups). */
const PROJECTS = {
  unit: { dir: 'test/unit', groups: 3 },
  integration: { dir: 'test/integration', groups: 16 },
  workflows: { dir: 'test/workflows', groups: 2 },
};

/**
 * A file that changes what the whole registry sees runs alone: `jest.setTimeout` applies to every
 * test of the registry (jest reads it once, at the run's start), a module mock to every later
 * require, an assignment to process.env to every later file. `// jest-group: alone` says so by hand.
 */
const ALONE =
  /\bjest\.(setTimeout|mock|doMock|unmock|resetModules|isolateModules|useFakeTimers)\b|process\.env\.[A-Za-z_]+\s*=[^=]|process\.env\[[^\]]+\]\s*=[^=]|jest-group:\s*alone/;

/**
 * Seconds per file in a CI run (2 workers on 2 cores), for the balance and the order; unknown files
 * count 15. The chaos file counts 0: a whole run skips it (npm run test:faults runs it).
 */
const SECONDS = require('./seconds.json');
const DEFAULT_SECONDS = 15;
/** A group took about three quarters of its files' seconds run one by one (issue 42's CI run). */
const GROUP_FACTOR = 0.75;

function testFiles(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...testFiles(rel));
    else if (entry.name.endsWith('.test.ts')) out.push(rel);
  }
  return out.sort();
}

const seconds = (file) => SECONDS[file] ?? DEFAULT_SECONDS;

const plans = new Map();
/** `{ groups: string[][], alone: string[] }`, paths relative to the repository, the same on every call. */
function plan(project) {
  if (plans.has(project)) return plans.get(project);
  const { dir, groups: count } = PROJECTS[project];
  const alone = [];
  const grouped = [];
  for (const file of testFiles(dir)) {
    (ALONE.test(readFileSync(join(root, file), 'utf8')) ? alone : grouped).push(file);
  }
  // Longest first into the lightest group, so the groups come out about even.
  const groups = Array.from({ length: count }, () => ({ files: [], total: 0 }));
  const order = [...grouped].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
  for (const file of order) {
    const lightest = groups.reduce((min, g) => (g.total < min.total ? g : min));
    lightest.files.push(file);
    lightest.total += seconds(file);
  }
  const result = { groups: groups.map((g) => g.files.sort()), alone };
  plans.set(project, result);
  return result;
}

/** The group entry files of a project, relative to the repository. */
function entries(project) {
  const { groups } = PROJECTS[project];
  return Array.from(
    { length: groups },
    (_, i) => `test/groups/${project}-${String(i + 1).padStart(2, '0')}.test.ts`,
  );
}

/** The files jest should match for a project when grouping: its group entries and its lone files. */
function testMatch(project) {
  return [...entries(project), ...plan(project).alone].map((f) => `<rootDir>/${f}`);
}

/** Expected seconds of a test path (a group entry sums its members), or undefined when unknown. */
function expectedSeconds(absPath) {
  const rel = relative(root, absPath).split('\\').join('/');
  const m = /^test\/groups\/([a-z]+)-(\d+)\.test\.ts$/.exec(rel);
  if (m && PROJECTS[m[1]]) {
    const files = plan(m[1]).groups[Number(m[2]) - 1] ?? [];
    return GROUP_FACTOR * files.reduce((sum, f) => sum + seconds(f), 0);
  }
  return SECONDS[rel];
}

module.exports = { PROJECTS, plan, entries, testMatch, expectedSeconds, testFiles, root };
