// The resource manifest (sdk/codegen/resources.json) as the TypeScript generators and the contract
// check read it: one name per resource, its deprecated aliases per SDK, and each /v1/ operation's
// resource and method, in each SDK's casing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const sdks = ['node', 'python', 'php'] as const;
export type Sdk = (typeof sdks)[number];

interface OperationEntry {
  method: string;
  node?: string;
  python?: string;
  php?: string;
}
interface ResourceEntry {
  name: string;
  deprecatedAliases?: Partial<Record<Sdk, string[]>>;
  operations: Record<string, OperationEntry>;
}
export interface ResourceManifest {
  resources: ResourceEntry[];
}

export const manifestPath = join(__dirname, 'resources.json');

export function loadManifest(path = manifestPath): ResourceManifest {
  return JSON.parse(readFileSync(path, 'utf8')) as ResourceManifest;
}

/** camelCase -> snake_case (payoutBatches -> payout_batches), Python's casing of the same word. */
export function snake(name: string): string {
  return name.replace(/(?<!^)(?=[A-Z])/g, '_').toLowerCase();
}

/** A name as the SDK writes it: camelCase in Node and PHP, snake_case in Python. */
export function cased(sdk: Sdk, name: string): string {
  return sdk === 'python' ? snake(name) : name;
}

/** The resource's name in an SDK. */
export function resourceName(sdk: Sdk, resource: ResourceEntry): string {
  return cased(sdk, resource.name);
}

/** Where each operation lives in an SDK: operationId -> [resource, method], in the SDK's casing. */
export function placements(sdk: Sdk, manifest = loadManifest()): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const resource of manifest.resources) {
    for (const [id, op] of Object.entries(resource.operations)) {
      if (out[id]) throw new Error(`resources.json places ${id} twice`);
      const own = op[sdk];
      out[id] = [resourceName(sdk, resource), own ?? cased(sdk, op.method)];
    }
  }
  return out;
}

/** The resources of an SDK, each with its deprecated aliases (SDK casing). */
export function resourcesOf(sdk: Sdk, manifest = loadManifest()): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const resource of manifest.resources)
    out[resourceName(sdk, resource)] = resource.deprecatedAliases?.[sdk] ?? [];
  return out;
}

/** Every operation the manifest places must be in `documentIds`, and every one of them placed. */
export function placementProblems(documentIds: string[], manifest = loadManifest()): string[] {
  const placed = new Set(Object.keys(placements('node', manifest)));
  const wanted = new Set(documentIds);
  return [
    ...[...wanted]
      .filter((id) => !placed.has(id))
      .map((id) => `${id} has no place in sdk/codegen/resources.json`),
    ...[...placed]
      .filter((id) => !wanted.has(id))
      .map((id) => `resources.json places ${id}, which the document lacks`),
  ];
}
