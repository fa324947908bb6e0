import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The layer rules of eslint.layers.mjs (domain <- contract <- services/activities <- API/wiring),
// checked on in-memory fixtures with ESLint's Node API. A child Node process runs ESLint, which
// loads its ESM config itself (jest's module sandbox cannot); TypeScript's parser without type
// information, so it is quick.

const root = join(__dirname, '../..');

type Fixture = [file: string, source: string];

function lint(fixtures: Fixture[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    (async () => {
      const fixtures = JSON.parse(process.argv[1]);
      const layers = new ESLint({
        cwd: process.cwd(),
        overrideConfigFile: 'eslint.layers.mjs',
        overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: require('typescript-eslint').parser } }],
      });
      const out = [];
      for (const [file, source] of fixtures) {
        const [result] = await layers.lintText(source, { filePath: file });
        out.push(result.messages.map((m) => (m.ruleId ?? 'fatal') + ' ' + m.message));
      }
      // The cycle rule, on two files importing each other.
      const { mkdtempSync, writeFileSync } = require('node:fs');
      const { join } = require('node:path');
      const { pathToFileURL } = require('node:url');
      const { noCycle } = await import(pathToFileURL(join(process.cwd(), 'eslint.layers.mjs')).href);
      const dir = mkdtempSync(join(require('node:os').tmpdir(), 'cycle-'));
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\\nexport const a = () => b;\\n");
      writeFileSync(join(dir, 'b.ts'), "import { a } from './a';\\nexport const b = () => a;\\n");
      const cycles = new ESLint({
        cwd: dir,
        overrideConfigFile: true,
        overrideConfig: [{ ...noCycle, files: ['**/*.ts'], languageOptions: { parser: require('typescript-eslint').parser } }],
      });
      const linted = await cycles.lintFiles(['a.ts', 'b.ts']);
      out.push(linted.flatMap((r) => r.messages.map((m) => (m.ruleId ?? 'fatal') + ' ' + m.message)));
      require('node:fs').rmSync(dir, { recursive: true, force: true });
      // The project's own config must carry the same rules (it spreads them).
      const full = await new ESLint({ cwd: process.cwd() }).calculateConfigForFile('src/domain/money.ts');
      out.push([JSON.stringify(full.rules['no-restricted-imports'] ?? null)]);
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const output = execFileSync(process.execPath, ['-e', script, JSON.stringify(fixtures)], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(output) as string[][];
}

describe('layer rules (eslint.layers.mjs)', () => {
  const fixtures: Fixture[] = [
    ['src/domain/fixture.ts', "import { renderProblem } from '../api/problem';"],
    ['src/domain/fixture.ts', "import type { ProblemCode } from '../contract/problems';"],
    ['src/domain/fixture.ts', "import { toMajor } from './money';\nimport { z } from 'zod';"],
    ['src/contract/schemas/fixture.ts', "import { PayinService } from '../../services/payin-service';"],
    ['src/contract/fixture.ts', "import express from 'express';"],
    [
      'src/contract/schemas/fixture.ts',
      "import { toMajor } from '../../domain/money';\nimport { eventType } from '../../events/catalogue';\nimport { decodeCursor } from '../../ledger/cursor';",
    ],
    ['src/services/fixture.ts', "import { ApiProblem } from '../api/problem';"],
    ['src/services/fixture.ts', "import { ApiProblem } from '../contract/problems';"],
    ['src/checkout/fixture.ts', "import { negotiateLanguage } from '../api/i18n';"],
    ['src/ledger/fixture.ts', "import { buildActivityDeps } from '../main/wiring';"],
    ['activities/fixture.ts', "import type { PayinWorkflowInput } from '../workflows/payin';"],
    ['activities/fixture.ts', "import { parseOr400 } from '../src/api/validate';"],
  ];
  let results: string[][];
  beforeAll(() => {
    results = lint(fixtures);
  }, 60_000);

  const at = (i: number) => results[i]!.join('\n');

  it('the domain imports nothing above it, types included', () => {
    expect(at(0)).toMatch(/no-restricted-imports .*domain imports only the domain/);
    expect(at(1)).toMatch(/no-restricted-imports .*domain imports only the domain/);
    expect(results[2]).toEqual([]);
  });

  it('the contract imports only the domain (and libraries), no framework', () => {
    expect(at(3)).toMatch(/contract imports only the domain/);
    expect(at(4)).toMatch(/no-restricted-imports/);
    expect(results[5]).toEqual([]);
  });

  it('services, the checkout, the ledger and activities never import src/api or src/main', () => {
    expect(at(6)).toMatch(/Only the Express layer imports src\/api/);
    expect(results[7]).toEqual([]);
    expect(at(8)).toMatch(/Only the Express layer imports src\/api/);
    expect(at(9)).toMatch(/composition root/);
    expect(at(10)).toMatch(/Activities never import a workflow module/);
    expect(at(11)).toMatch(/Only the Express layer imports src\/api/);
  });

  it('import-x/no-cycle finds a cycle between two TypeScript modules', () => {
    expect(results[fixtures.length]).toEqual([
      'import-x/no-cycle Dependency cycle detected',
      'import-x/no-cycle Dependency cycle detected',
    ]);
  });

  it('the project config applies them', () => {
    expect(at(fixtures.length + 1)).toContain('domain imports only the domain');
  });
});
