import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// No import cycle in the code that runs (src/, activities/, workflows/), type-only imports included:
// ESLint's import-x/no-cycle sees runtime imports only, yet a cycle through types still ties layers
// together. Every edge counts, a workflow's `import type` of its activity factories included: the
// modules activities reach import no workflow (src/temporal/start-once.ts, the reconciliation
// modules by name). TypeScript's own resolver finds the edges; CYCLES_ROOT checks another checkout.

const root = process.env.CYCLES_ROOT ?? join(__dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The modules a file imports or re-exports (static, dynamic or require), and whether only types. */
function imports(file: string): { specifier: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  const add = (node: ts.Expression | undefined, typeOnly: boolean) => {
    if (node && ts.isStringLiteral(node)) found.push({ specifier: node.text, typeOnly });
  };
  const walk = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!named &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === 'require')
      )
        add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    }
    ts.forEachChild(node, walk);
  };
  walk(source);
  return found;
}

/** Every strongly connected component of more than one file (or a file importing itself), as its imports. */
function importCycles(): string[][] {
  const files = ['src', 'activities', 'workflows'].flatMap((d) => sources(join(root, d)));
  const known = new Set(files);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
  };
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = imports(file)
      .map((i) => ({
        ...i,
        target: ts.resolveModuleName(i.specifier, file, options, ts.sys).resolvedModule?.resolvedFileName,
      }))
      .map((i) => i.target)
      .filter((t): t is string => !!t && known.has(t));
    edges.set(file, [...new Set(targets)]);
  }
  // Tarjan's algorithm, iterative enough for a few hundred files.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(relative(root, w));
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) {
        // Reported as the imports inside the component: each is a candidate to cut.
        const inside = new Set(scc);
        cycles.push(
          scc.sort().flatMap((a) =>
            (edges.get(join(root, a)) ?? [])
              .map((b) => relative(root, b))
              .filter((b) => inside.has(b))
              .map((b) => `${a} -> ${b}`),
          ),
        );
      }
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import graph', () => {
  it('has no cycle, type-only imports included', () => {
    expect(importCycles()).toEqual([]);
  });
});
