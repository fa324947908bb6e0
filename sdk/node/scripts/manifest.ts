// sdk/node/manifest.sh: the SDK's operations and models as one JSON object, for the contract check
// (scripts/check-sdks.ts). Operations: each entry of the SDK's method table is called on a client
// whose fetch only records the request, and the request must be that operation's method and path.
// Models: the fields of each components.schemas type, read by the TypeScript compiler from the
// generated types the methods are typed with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { MomoPayments, apiOperations, sdkMethods, sdkVersion } from '../src/index';
import { deprecatedResourceAliases } from '../src/operations';
import { EventStream } from '../src/stream';

type ApiOperationId = keyof typeof apiOperations;

function templateRegex(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
}

async function operations(): Promise<Record<string, string>> {
  const seen: { method: string; path: string }[] = [];
  const probeBody = {
    id: 'probe',
    status: 'ready',
    download: { url: '/v1/statements/probe/download?expires=1&signature=00' },
    data: [],
    nextCursor: null,
  };
  const client = new MomoPayments({
    apiKey: 'mk_test_probe',
    apiClient: 'sk_test_probe',
    baseUrl: 'http://probe.invalid',
    maxRetries: 0,
    fetch: async (input, init) => {
      seen.push({ method: init?.method ?? 'GET', path: new URL(input).pathname });
      return new Response(JSON.stringify(probeBody), { headers: { 'content-type': 'application/json' } });
    },
  });
  const out: Record<string, string> = {};
  const problems: string[] = [];
  for (const [operationId, name] of Object.entries(sdkMethods) as [ApiOperationId, string][]) {
    const [resourceName, methodName] = name.split('.') as [string, string];
    const resource = (client as unknown as Record<string, Record<string, unknown>>)[resourceName];
    const method = resource?.[methodName];
    if (typeof method !== 'function') {
      problems.push(`${operationId}: ${name} is not a method`);
      continue;
    }
    const expected = apiOperations[operationId];
    if (operationId === 'openEventStream') {
      // A WebSocket, not fetch: the stream's URL must be the operation's path.
      const url = new URL(new EventStream(client.core).url);
      if (!url.protocol.startsWith('ws') || url.pathname !== expected.path)
        problems.push(`${operationId}: ${url.pathname}`);
      out[operationId] = name;
      continue;
    }
    seen.length = 0;
    await Promise.resolve((method as (...a: unknown[]) => unknown).call(resource, 'probe', {}, {}));
    const last = seen.at(-1);
    if (!last || last.method !== expected.method || !templateRegex(expected.path).test(last.path))
      problems.push(`${operationId}: ${name} sent ${last ? `${last.method} ${last.path}` : 'nothing'}`);
    else out[operationId] = name;
  }
  if (problems.length > 0)
    throw new Error(`SDK methods that do not call their operation:\n${problems.join('\n')}`);
  return out;
}

function propertyNames(type: ts.Type, checker: ts.TypeChecker): string[] {
  const members = type.isUnion() || type.isIntersection() ? type.types : [type];
  const names = new Set<string>();
  for (const member of members) {
    if (!(member.flags & ts.TypeFlags.Object) || checker.isArrayType(member)) continue;
    for (const prop of checker.getPropertiesOfType(member)) names.add(prop.getName());
  }
  return [...names].sort();
}

function models(): Record<string, string[]> {
  const file = join(__dirname, '..', 'src', 'generated', 'openapi.ts');
  const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const components = source?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'components',
  );
  if (!components) throw new Error('components not found in the generated types');
  const schemas = checker.getTypeAtLocation(components).getProperty('schemas');
  if (!schemas) throw new Error('components.schemas not found');
  const schemasType = checker.getTypeOfSymbolAtLocation(schemas, components);
  const out: Record<string, string[]> = {};
  for (const schema of checker.getPropertiesOfType(schemasType))
    out[schema.getName()] = propertyNames(checker.getTypeOfSymbolAtLocation(schema, components), checker);
  return out;
}

/**
 * The client's resources (its own properties holding a resource), and its deprecated names: getters
 * that warn (a DeprecationWarning) and answer one of the resources.
 */
function resources(): { resources: string[]; deprecatedAliases: Record<string, string> } {
  const client = new MomoPayments({
    apiKey: 'mk_test_probe',
    apiClient: 'sk_test_probe',
    baseUrl: 'http://probe.invalid',
  });
  const record = client as unknown as Record<string, unknown>;
  const names = Object.keys(client).filter((k) => k !== 'core' && typeof record[k] === 'object');
  const deprecatedAliases: Record<string, string> = {};
  const warnings: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, below
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, options?: { type?: string }) => {
    if (options?.type === 'DeprecationWarning') warnings.push(String(warning));
  }) as typeof process.emitWarning;
  try {
    for (const [key, descriptor] of Object.entries(
      Object.getOwnPropertyDescriptors(MomoPayments.prototype),
    )) {
      if (!descriptor.get) continue;
      warnings.length = 0;
      const value = descriptor.get.call(client) as unknown;
      const current = names.find((n) => record[n] === value);
      if (current && warnings.length > 0) deprecatedAliases[key] = current;
    }
  } finally {
    process.emitWarning = emit;
  }
  // The generated table must agree with the getters.
  if (
    JSON.stringify(Object.entries(deprecatedAliases).sort()) !==
    JSON.stringify(Object.entries(deprecatedResourceAliases).sort())
  )
    throw new Error(
      `deprecated getters ${JSON.stringify(deprecatedAliases)} differ from the generated ${JSON.stringify(deprecatedResourceAliases)}`,
    );
  return { resources: names, deprecatedAliases };
}

async function main(): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
  if (pkg.version !== sdkVersion)
    throw new Error(`sdk/node/package.json says ${pkg.version}, src/version.ts ${sdkVersion}: make them one`);
  const manifest = {
    sdk: 'node',
    version: sdkVersion,
    operations: await operations(),
    models: models(),
    ...resources(),
  };
  process.stdout.write(`${JSON.stringify(manifest)}\n`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
