import type { z } from 'zod';
import { openApiDocument } from '../../src/api/openapi/document';
import { declaredOperations } from '../../src/api/openapi/registry';
import { publicEvent } from '../../src/events/catalogue';
import { problemSchema } from '../../src/contract/problems';
import { allBlocks, blocksOf, mustSkip, retarget, scriptFor } from '../helpers/doc-examples';

// The JSON examples of README.md and docs/ parse, and one marked `<!-- example: schema=Name -->`
// is what the named OpenAPI component accepts (its zod schema). The ```sh examples run in
// test/integration/doc-examples.test.ts.

/** Every named component the operations use, by name (one name may cover a few schemas). */
function components(): Map<string, z.ZodType[]> {
  openApiDocument(); // registers the operations
  const byName = new Map<string, z.ZodType[]>([
    ['Event', [publicEvent]],
    ['Problem', [problemSchema]],
  ]);
  const add = (name: string | undefined, schema: z.ZodType | undefined) => {
    if (!name || !schema) return;
    const list = byName.get(name) ?? [];
    if (!list.includes(schema)) list.push(schema);
    byName.set(name, list);
  };
  for (const op of declaredOperations()) {
    for (const b of op.body?.schemas ?? []) add(b.name, b.schema);
    for (const r of Object.values(op.responses)) add(r.name, r.schema);
  }
  return byName;
}

const json = allBlocks().filter((b) => b.lang === 'json');

describe('documentation JSON examples', () => {
  const schemas = components();

  it.each(json.map((b) => [`${b.file}:${b.line}`, b] as const))('%s parses', (_at, b) => {
    expect(() => JSON.parse(b.code) as unknown).not.toThrow();
  });

  it.each(json.filter((b) => b.schema).map((b) => [`${b.file}:${b.line} (${b.schema})`, b] as const))(
    '%s matches its schema',
    (_at, b) => {
      const candidates = schemas.get(b.schema!);
      if (!candidates)
        throw new Error(`no component named ${b.schema}: one of ${[...schemas.keys()].join(', ')}`);
      const value: unknown = JSON.parse(b.code);
      const results = candidates.map((s) => s.safeParse(value));
      if (!results.some((r) => r.success))
        throw new Error(
          JSON.stringify(
            results.map((r) => r.error?.issues),
            null,
            2,
          ),
        );
    },
  );
});

describe('the example runner', () => {
  it('reads the language, the skip and schema markers, and indented fences', () => {
    const text = [
      '<!-- example: skip -->',
      '```sh',
      'npm start',
      '```',
      '',
      '<!-- example: schema=DirectPayinRequest -->',
      '',
      '```json',
      '{}',
      '```',
      '- a step:',
      '  ```sh',
      '  curl -u "$API_KEY:$API_CLIENT" localhost:3000/v1/accounts',
      '  ```',
    ].join('\n');
    expect(blocksOf('docs/x.md', text)).toEqual([
      { file: 'docs/x.md', line: 2, lang: 'sh', code: 'npm start', skip: true },
      { file: 'docs/x.md', line: 8, lang: 'json', code: '{}', skip: false, schema: 'DirectPayinRequest' },
      {
        file: 'docs/x.md',
        line: 12,
        lang: 'sh',
        code: 'curl -u "$API_KEY:$API_CLIENT" localhost:3000/v1/accounts',
        skip: false,
      },
    ]);
  });

  it('points the documented addresses at the stack', () => {
    const t = { api: 'http://127.0.0.1:5555', simulator: 'http://127.0.0.1:6666' };
    expect(
      retarget('curl localhost:3000/v1/x http://localhost:3000/y http://localhost:4010/_sandbox', t),
    ).toBe('curl http://127.0.0.1:5555/v1/x http://127.0.0.1:5555/y http://127.0.0.1:6666/_sandbox');
    expect(scriptFor([], t)).toMatch(/^set -euo pipefail\ncurl\(\) \{ command curl .*--fail-with-body/);
  });

  it('never runs what would reinstall, start servers or leave the machine, marker or not', () => {
    const block = (code: string) => ({ file: 'README.md', line: 1, lang: 'sh', code, skip: false });
    expect(mustSkip(block('npm ci && npm start'))).toMatch(/README.md:1 runs `npm ci`/);
    expect(mustSkip(block('docker compose up -d'))).toMatch(/docker/);
    expect(mustSkip(block('bash scripts/quickstart.sh'))).toMatch(/quickstart/);
    expect(mustSkip(block('npx payments merchants create --json'))).toBeNull();
    expect(mustSkip(block('curl -u "$API_KEY:$API_CLIENT" localhost:3000/v1/accounts'))).toBeNull();
  });
});
