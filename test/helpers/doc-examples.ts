import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The fenced examples of README.md and docs/**/*.md, as the runnable-example convention reads
// them (docs/README.md): a ```sh block runs unless the line before it is `<!-- example: skip -->`,
// a ```json block must parse, and `<!-- example: schema=Name -->` names the OpenAPI component it is.

export interface DocBlock {
  /** Path from the repository root, e.g. `docs/payins.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's text, without the fence's indentation. */
  code: string;
  skip: boolean;
  /** The component named by a `schema=` marker. */
  schema?: string;
}

const root = join(__dirname, '..', '..');

/** README.md, then every Markdown file under docs/, in a stable order. */
export function docFiles(): string[] {
  const docs = (readdirSync(join(root, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f))
    .sort();
  return ['README.md', ...docs];
}

const marker = /^<!--\s*example:\s*(.*?)\s*-->$/;

export function blocksOf(file: string, text = readFileSync(join(root, file), 'utf8')): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (l.trim().startsWith(fence) && l.trim().replace(/[`~]/g, '') === '') break;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    // The marker is the nearest non-blank line above the fence.
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const m = k >= 0 ? marker.exec(lines[k]!.trim()) : null;
    const words = m ? m[1]!.split(/\s+/) : [];
    const schema = words.find((w) => w.startsWith('schema='))?.slice('schema='.length);
    blocks.push({
      file: relative(root, join(root, file)),
      line: i + 1,
      lang: lang.toLowerCase(),
      code: body.join('\n'),
      skip: words.includes('skip'),
      ...(schema ? { schema } : {}),
    });
    i = j;
  }
  return blocks;
}

export const allBlocks = (): DocBlock[] => docFiles().flatMap((f) => blocksOf(f));

/**
 * Commands a CI run must never execute even when a block forgot its skip marker: they would
 * reinstall node_modules, start servers (the quick start starts its own stack), or reach other hosts.
 */
const neverRun =
  /(^|[\s;&|(])(npm (ci|install|i|start|test|run)\b|docker\b|ssh\b|scripts\/(provision|quickstart)\b|payments quickstart\b)/m;

/** Why a runnable block must carry `<!-- example: skip -->` instead, or null. */
export function mustSkip(b: DocBlock): string | null {
  const m = neverRun.exec(b.code);
  return m ? `${b.file}:${b.line} runs \`${m[2]}\`: mark it \`<!-- example: skip -->\`` : null;
}

export interface Targets {
  api: string;
  simulator: string;
}

/** A block's text with the documented addresses replaced by the test stack's. */
export function retarget(code: string, t: Targets): string {
  return code
    .replace(/https?:\/\/(?:localhost|127\.0\.0\.1):4010/g, t.simulator)
    .replace(/(?:https?:\/\/)?(?:localhost|127\.0\.0\.1):3000/g, t.api);
}

/**
 * One bash script for a file's runnable blocks, in order, in one session: a later block may use a
 * variable an earlier one set. `curl` fails unless it gets a 2xx: `--fail-with-body` on a 4xx or 5xx
 * (keeping the problem document in the output), `--location --max-redirs 0` on a redirect. Each
 * block announces itself so a failure names its line.
 */
export function scriptFor(blocks: DocBlock[], t: Targets): string {
  const parts = [
    'set -euo pipefail',
    'curl() { command curl --silent --show-error --fail-with-body --location --max-redirs 0 "$@"; }',
    ...blocks.map((b) => `echo "### ${b.file}:${b.line}" >&2\n${retarget(b.code, t)}\necho`),
  ];
  return parts.join('\n') + '\n';
}
