import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { flowActivityNames } from '../../activities';

// Each flow registers exactly the activities its workflows schedule (activities/<flow>/index.ts),
// and the worker registers their union (activities/index.ts). Read from the sources with
// TypeScript's checker: every activity a workflow of workflows/<flow>/ calls through a proxy (a
// property whose declaration is an activity of activities/) must be in that flow's list, and every
// name of the list must be called there. So a workflow cannot proxy an activity no worker
// registers (its call would wait for ever), and no activity is registered that nothing schedules
// (an unscheduled single step, once hidden by a deny-list). The golden histories (the 1.0 shapes
// that may still be running) schedule only registered activities.

const root = join(__dirname, '..', '..');
const flows = Object.keys(flowActivityNames) as (keyof typeof flowActivityNames)[];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The activity names each workflow file calls: properties declared by an activity factory. */
function scheduledByFile(): Map<string, Set<string>> {
  const files = sources(join(root, 'workflows'));
  const program = ts.createProgram(files, {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const activitiesDir = join(root, 'activities') + sep;
  const isActivity = (symbol: ts.Symbol | undefined) =>
    !!symbol?.declarations?.some(
      (d) =>
        (ts.isMethodDeclaration(d) || ts.isPropertyAssignment(d) || ts.isShorthandPropertyAssignment(d)) &&
        ts.isObjectLiteralExpression(d.parent) &&
        join(d.getSourceFile().fileName).startsWith(activitiesDir),
    );
  const found = new Map<string, Set<string>>();
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node)) {
        if (isActivity(checker.getSymbolAtLocation(node.name))) names.add(node.name.text);
      } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const key = node.propertyName ?? node.name;
        if (ts.isIdentifier(key)) {
          const property = checker.getTypeAtLocation(node.parent).getProperty(key.text);
          if (isActivity(property)) names.add(key.text);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    found.set(relative(root, file).split(sep).join('/'), names);
  }
  return found;
}

/** Every activity type a golden history schedules, as a regular activity or a local one (a marker). */
function scheduledByGoldenHistories(): Set<string> {
  const dir = join(root, 'test/golden');
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const { events } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { events: any[] };
    for (const e of events) {
      const regular = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (regular) names.add(regular);
      const marker = e.markerRecordedEventAttributes;
      if (marker?.markerName === 'core_local_activity') {
        const data = marker.details?.data?.payloads?.[0]?.data;
        const type = data && JSON.parse(Buffer.from(data, 'base64').toString('utf8')).activity_type;
        if (type) names.add(type);
      }
    }
  }
  return names;
}

describe('activity registration: each flow registers what its workflows schedule', () => {
  const byFile = scheduledByFile();
  const scheduledBy = (flow: string) =>
    [
      ...new Set(
        [...byFile].flatMap(([file, names]) => (file.startsWith(`workflows/${flow}/`) ? [...names] : [])),
      ),
    ].sort();

  it('reads the calls: a proxy call, a destructured proxy, a local proxy', () => {
    expect(byFile.get('workflows/payin/otp-keeper.ts')).toEqual(new Set(['forgetOtp']));
    expect(byFile.get('workflows/operations/publish-event.ts')).toEqual(new Set(['recordEvent']));
    expect(byFile.get('workflows/payin/payin-steps.ts')).toContain('requestCollection');
  });

  it('no workflow folder outside the flows, and shared/ schedules nothing', () => {
    const folders = readdirSync(join(root, 'workflows'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual([...flows, 'shared'].sort());
    expect(scheduledBy('shared')).toEqual([]);
    expect([...byFile.get('workflows/index.ts')!]).toEqual([]);
  });

  it.each(flows)('%s: its list is exactly what the workflows of its folder call', (flow) => {
    expect([...flowActivityNames[flow]].sort()).toEqual(scheduledBy(flow));
  });

  it('every activity a golden history schedules is registered', () => {
    const registered = new Set<string>(flows.flatMap((f) => [...flowActivityNames[f]]));
    const golden = scheduledByGoldenHistories();
    expect(golden.size).toBeGreaterThan(20);
    expect([...golden].filter((name) => !registered.has(name))).toEqual([]);
  });
});
