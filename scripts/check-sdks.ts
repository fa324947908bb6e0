// npm run check:sdks: the SDKs' contract check (docs/sdks.md). sdk/openapi.json must be what the
// served document is, and each SDK's manifest (`bash sdk/<lang>/manifest.sh`, built by introspecting
// the SDK) must cover exactly the document: every operation under /v1/, every schema's properties as
// its model's fields, and nothing the document lacks. Exits 1 with the list of disagreements.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadManifest,
  placements,
  resourcesOf,
  type ResourceManifest,
  type Sdk,
} from '../sdk/codegen/manifest';

export const sdkLanguages = ['node', 'python', 'php'] as const;

/** What `sdk/<lang>/manifest.sh` prints (the common interface of issue 33). */
export interface SdkManifest {
  sdk: string;
  version: string;
  /** operationId -> the SDK's method name. */
  operations: Record<string, string>;
  /** components.schemas name -> the model's field names (as in the document, i.e. JSON names). */
  models: Record<string, string[]>;
  /** The client's resource properties, in the SDK's casing. */
  resources?: string[];
  /** Old resource names the client still answers (with a deprecation warning) -> the resource. */
  deprecatedAliases?: Record<string, string>;
}

/** The parts of an OpenAPI document the check reads. */
export interface OpenApiDoc {
  info: { version: string };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown>; [key: string]: unknown }> };
}

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** The operationIds an SDK must cover: every operation whose path starts with /v1/. */
export function sdkOperationIds(doc: OpenApiDoc): string[] {
  const ids: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(item)) {
      const id = (op as { operationId?: unknown } | null)?.operationId;
      if (httpMethods.has(method) && typeof id === 'string') ids.push(id);
    }
  }
  return ids.sort();
}

/**
 * Whether an SDK's version fits the API's: the same major.minor, and a patch of its own at least the
 * API's (1.0.1 is the SDKs' fixes on API 1.0.0; docs/decisions/sdks/sdk-version-api-major-minor-own-patch.md).
 */
export function isReleaseOf(sdkVersion: unknown, apiVersion: string): boolean {
  const parse = (v: unknown) => (typeof v === 'string' ? /^(\d+)\.(\d+)\.(\d+)$/.exec(v) : null);
  const sdk = parse(sdkVersion);
  const api = parse(apiVersion);
  return !!sdk && !!api && sdk[1] === api[1] && sdk[2] === api[2] && Number(sdk[3]) >= Number(api[3]);
}

/** Everything on which `manifest` and the document disagree, one readable line each; [] when none. */
export function compareManifest(doc: OpenApiDoc, manifest: unknown, lang: string): string[] {
  const problems: string[] = [];
  const m = manifest as Partial<SdkManifest> | null;
  if (typeof m !== 'object' || m === null || typeof m.operations !== 'object' || typeof m.models !== 'object')
    return ['the manifest is not an object with "operations" and "models"'];
  if (m.sdk !== lang) problems.push(`"sdk" is ${JSON.stringify(m.sdk)}, expected "${lang}"`);
  if (!isReleaseOf(m.version, doc.info.version))
    problems.push(
      `version ${JSON.stringify(m.version)} is not a release of the API's version ${doc.info.version} (same major.minor, a patch at least its)`,
    );

  const wanted = sdkOperationIds(doc);
  const wantedSet = new Set(wanted);
  const given = m.operations ?? {};
  for (const id of wanted) {
    if (!(id in given)) problems.push(`operation ${id}: missing`);
    else if (typeof given[id] !== 'string' || given[id] === '')
      problems.push(`operation ${id}: no method name given`);
  }
  for (const id of Object.keys(given).sort())
    if (!wantedSet.has(id)) problems.push(`operation ${id}: not an operation under /v1/ in the document`);

  const schemas = doc.components?.schemas ?? {};
  const models = m.models ?? {};
  for (const [name, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) {
    if (!schema.properties) continue;
    const fields = models[name];
    if (!Array.isArray(fields)) {
      problems.push(`model ${name}: missing`);
      continue;
    }
    const want = new Set(Object.keys(schema.properties));
    const have = new Set(fields);
    const missing = [...want].filter((f) => !have.has(f)).sort();
    const extra = [...have].filter((f) => !want.has(f)).sort();
    if (missing.length) problems.push(`model ${name}: missing field(s) ${missing.join(', ')}`);
    if (extra.length) problems.push(`model ${name}: field(s) the document lacks: ${extra.join(', ')}`);
  }
  for (const name of Object.keys(models).sort())
    if (!(name in schemas)) problems.push(`model ${name}: not a schema of the document`);
  return problems;
}

/**
 * The cross-SDK check: an SDK's resources are exactly those of sdk/codegen/resources.json, in its
 * casing (one name per resource in the three SDKs), each operation sits on its resource there, and
 * the deprecated aliases are those the manifest lists for the SDK. [] when it agrees.
 */
export function compareResources(manifest: unknown, lang: Sdk, resources: ResourceManifest): string[] {
  const m = manifest as Partial<SdkManifest> | null;
  if (typeof m !== 'object' || m === null || !Array.isArray(m.resources))
    return ['the manifest has no "resources" list'];
  const problems: string[] = [];
  const wanted = resourcesOf(lang, resources);
  const have = new Set(m.resources);
  for (const name of Object.keys(wanted))
    if (!have.has(name)) problems.push(`resource ${name}: missing (sdk/codegen/resources.json names it)`);
  for (const name of [...have].sort())
    if (!(name in wanted)) problems.push(`resource ${name}: not a resource of sdk/codegen/resources.json`);
  const place = placements(lang, resources);
  for (const [id, method] of Object.entries(m.operations ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const where = place[id];
    if (where && method !== `${where[0]}.${where[1]}`)
      problems.push(`operation ${id}: ${method}, resources.json places it at ${where[0]}.${where[1]}`);
  }
  const aliases = m.deprecatedAliases ?? {};
  const wantedAliases = Object.entries(wanted).flatMap(([r, old]) => old.map((a) => [a, r] as const));
  for (const [alias, resource] of wantedAliases)
    if (aliases[alias] !== resource)
      problems.push(
        `deprecated alias ${alias}: should answer ${resource}, answers ${aliases[alias] ?? 'nothing'}`,
      );
  for (const alias of Object.keys(aliases).sort())
    if (!wantedAliases.some(([a]) => a === alias))
      problems.push(`deprecated alias ${alias}: not listed in sdk/codegen/resources.json`);
  return problems;
}

async function main(): Promise<void> {
  const root = join(__dirname, '..');
  // Imported here so the comparison above can be unit-tested without prettier (an ES module).
  const { sdkOpenApiCurrent, sdkOpenApiPath } = await import('./generate-sdk-openapi');
  let failed = false;
  if (!(await sdkOpenApiCurrent())) {
    console.error('sdk/openapi.json: stale, run `npm run generate:sdk-openapi` and commit it');
    failed = true;
  } else console.log('sdk/openapi.json: current');
  const doc = JSON.parse(readFileSync(sdkOpenApiPath, 'utf8')) as OpenApiDoc;
  const operations = sdkOperationIds(doc).length;
  const resources = loadManifest();

  for (const lang of sdkLanguages) {
    const script = `sdk/${lang}/manifest.sh`;
    if (!existsSync(join(root, script))) {
      // Only while an SDK is being written: once its directory exists, its manifest must too.
      if (existsSync(join(root, 'sdk', lang))) {
        console.error(`${lang}: ${script} is missing`);
        failed = true;
      } else console.warn(`${lang}: SKIPPED, there is no sdk/${lang} yet`);
      continue;
    }
    const started = Date.now();
    // stderr is shown as it comes: a first run may provision the language's tools.
    const run = spawnSync('bash', [script], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60_000,
    });
    let problems: string[];
    if (run.status !== 0) problems = [`${script} failed (exit ${run.status ?? run.signal})`];
    else {
      try {
        const manifest = JSON.parse(run.stdout) as unknown;
        problems = [...compareManifest(doc, manifest, lang), ...compareResources(manifest, lang, resources)];
      } catch {
        problems = [`${script} did not print one JSON object: ${run.stdout.slice(0, 200)}`];
      }
    }
    const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (problems.length === 0)
      console.log(`${lang}: agrees with the document (${operations} operations; ${took})`);
    else {
      failed = true;
      console.error(`${lang}: ${problems.length} disagreement(s) with sdk/openapi.json:`);
      for (const p of problems) console.error(`  - ${p}`);
    }
  }
  if (failed) process.exit(1);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
