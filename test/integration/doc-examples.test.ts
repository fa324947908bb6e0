import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { useStack } from '../helpers/use-stack';
import { fundMerchant } from '../helpers/merchants';
import { blocksOf, docFiles, mustSkip, scriptFor } from '../helpers/doc-examples';

// Every ```sh example of README.md and docs/ runs against a real stack (docs/README.md, "Runnable
// examples"): one stack for all files, each file's blocks in order in one bash session, with a
// funded sandbox merchant's keys in API_KEY / API_CLIENT. A block must exit 0 and none of its curl
// calls may get an HTTP error. The JSON blocks are checked by test/unit/doc-examples.test.ts.

const root = join(__dirname, '..', '..');
const files = docFiles()
  .map((file) => ({ file, blocks: blocksOf(file).filter((b) => b.lang === 'sh' && !b.skip) }))
  .filter((f) => f.blocks.length > 0);

describe('the documentation examples run as written', () => {
  const { stack, merchant } = useStack({ fund: 10_000_000 });
  beforeAll(async () => {
    await fundMerchant(stack, merchant.merchantId, 10_000_000, 'XAF');
  });

  it.each(files.map((f) => [f.file, f.blocks] as const))(
    '%s',
    async (_file, blocks) => {
      const script = scriptFor(blocks, { api: stack.baseUrl, simulator: stack.simulator.url });
      const env = {
        ...process.env,
        API_KEY: merchant.credentials.apiKey,
        API_CLIENT: merchant.credentials.apiClient,
        // `npx payments …` in an example works on the stack's database.
        MONGODB_URI: `${process.env.TEST_MONGODB_URL}/${stack.mongo.name}`,
      };
      const refused = blocks.map(mustSkip).filter((m) => m !== null);
      if (refused.length > 0) throw new Error(refused.join('\n'));
      const run = await runBash(script, env);
      if (run.code !== 0) {
        const block = [...run.err.matchAll(/^### (.*)$/gm)].pop()?.[1] ?? '?';
        throw new Error(
          `the example at ${block} failed (exit ${run.code})\n--- stderr\n${run.err.slice(-3000)}\n` +
            `--- stdout\n${run.out.slice(-3000)}`,
        );
      }
    },
    70_000,
  );
});

/** bash in its own process group, killed whole (curl, node…) if a file takes over 60 s. */
function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((res) => {
    const child = spawn('bash', ['-c', script], { cwd: root, env, detached: true });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (process.env.DOC_EXAMPLES_PRINT) process.stdout.write(out);
      res({ code: code ?? (signal ? 128 : 1), out, err });
    });
  });
}
