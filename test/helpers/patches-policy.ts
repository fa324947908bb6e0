import ts from 'typescript';
import { LONGEST_RUN_DAYS, policyDates, type PatchTable } from '../../workflows/shared/patches';

// The versioning policy as a pure check (docs/versioning.md): a patch table, today's date and the
// sources of workflows/ in, the problems out, each saying what to do.

export interface Source {
  /** Path relative to the repository, e.g. workflows/payout/payout.ts. */
  readonly path: string;
  readonly text: string;
}

/** How a source asks about a patch id. */
interface Use {
  readonly id: string;
  readonly door: 'isPatched' | 'deprecated';
  readonly where: string;
}

const PATCHES_FILE = 'workflows/shared/patches.ts';
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The calls of the typed doors, and any direct use of Temporal's patching API. */
function scan(sources: readonly Source[]): { uses: Use[]; problems: string[] } {
  const uses: Use[] = [];
  const problems: string[] = [];
  for (const { path, text } of sources) {
    if (path === PATCHES_FILE) continue;
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node) => {
      if (
        ts.isImportDeclaration(node) &&
        ts.isStringLiteral(node.moduleSpecifier) &&
        node.moduleSpecifier.text === '@temporalio/workflow'
      ) {
        const named = node.importClause?.namedBindings;
        if (named && ts.isNamedImports(named))
          for (const el of named.elements) {
            const name = (el.propertyName ?? el.name).text;
            if (name === 'patched' || name === 'deprecatePatch')
              problems.push(
                `${where(el)} imports ${name}() from @temporalio/workflow: use isPatched()/deprecated() from ${PATCHES_FILE}, with a row for the id.`,
              );
          }
      }
      if (ts.isCallExpression(node)) {
        const callee = ts.isIdentifier(node.expression)
          ? node.expression.text
          : ts.isPropertyAccessExpression(node.expression)
            ? node.expression.name.text
            : '';
        if (callee === 'patched' || callee === 'deprecatePatch')
          problems.push(
            `${where(node)} calls ${callee}() directly: use isPatched()/deprecated() from ${PATCHES_FILE}, with a row for the id.`,
          );
        if (callee === 'isPatched' || callee === 'deprecated') {
          const [arg] = node.arguments;
          if (arg && ts.isStringLiteralLike(arg))
            uses.push({ id: arg.text, door: callee, where: where(node) });
          else
            problems.push(
              `${where(node)} calls ${callee}() without a literal id: write the id itself, so the policy can follow it.`,
            );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return { uses, problems };
}

/** What breaks the policy on `today` (YYYY-MM-DD, UTC); empty when all is well. */
export function checkPatches(table: PatchTable, today: string, sources: readonly Source[]): string[] {
  const { uses, problems } = scan(sources);
  for (const use of uses)
    if (!Object.hasOwn(table, use.id))
      problems.push(
        `${use.where} asks about patch '${use.id}', which has no row in ${PATCHES_FILE}: add one.`,
      );
  for (const [id, row] of Object.entries(table)) {
    const mine = uses.filter((u) => u.id === id);
    const at = (door: Use['door']) =>
      mine
        .filter((u) => u.door === door)
        .map((u) => u.where)
        .join(', ');
    const days = [
      row.shipped,
      row.deprecateFrom,
      row.removeFrom,
      ...(row.deprecated ? [row.deprecated] : []),
    ];
    if (!days.every((d) => DAY.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)))) {
      problems.push(`Patch '${id}': its dates must be days written YYYY-MM-DD.`);
      continue;
    }
    if (row.workflows.length === 0 || row.workflows.some((w) => !(w in LONGEST_RUN_DAYS))) {
      problems.push(`Patch '${id}': name the workflow types it changes (keys of LONGEST_RUN_DAYS).`);
      continue;
    }
    const due = policyDates(row);
    if (row.deprecateFrom !== due.deprecateFrom || row.removeFrom !== due.removeFrom)
      problems.push(
        `Patch '${id}': the policy gives deprecateFrom ${due.deprecateFrom} and removeFrom ${due.removeFrom} (policyDates in ${PATCHES_FILE}); write those.`,
      );
    if (mine.length === 0) {
      problems.push(`Patch '${id}' has a row but no workflow asks about it: delete the row.`);
      continue;
    }
    if (today >= row.removeFrom) {
      problems.push(
        `Patch '${id}' is past its removeFrom date (${row.removeFrom}): delete deprecated('${id}') (${at('deprecated') || at('isPatched')}) and its row.`,
      );
      continue;
    }
    const patchedAt = at('isPatched');
    if (row.deprecated && patchedAt)
      problems.push(
        `Patch '${id}' is marked deprecated (${row.deprecated}) but ${patchedAt} still call isPatched('${id}'): replace them with deprecated('${id}') and delete the old branch.`,
      );
    else if (!row.deprecated && at('deprecated'))
      problems.push(
        `Patch '${id}' is deprecated in ${at('deprecated')} but its row has no 'deprecated' date: set it to the day that release is deployed, and removeFrom from it.`,
      );
    if (row.deprecated && row.deprecated < row.deprecateFrom)
      problems.push(
        `Patch '${id}' was deprecated on ${row.deprecated}, before its deprecateFrom (${row.deprecateFrom}): workflows from before the patch may still replay; keep isPatched('${id}') until then.`,
      );
    if (!row.deprecated && patchedAt && today >= row.deprecateFrom)
      problems.push(
        `Patch '${id}' is past its deprecateFrom date (${row.deprecateFrom}) and ${patchedAt} still call isPatched('${id}'): keep only the new branch behind deprecated('${id}'), delete the old one, set 'deprecated' to the deploy day and removeFrom to policyDates() of it.`,
      );
  }
  return problems;
}
