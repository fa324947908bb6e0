import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { publishEventWorkflowType, type PublishEventWorkflow } from '../../src/events/publish-event';
import { publishEventWorkflow } from '../../workflows/operations/publish-event';

// Issue 17's Temporal wiring, kept by reading the sources: workflow ids are built in one module,
// workflows are started by reference (one documented exception), and src/main is the only
// composition root.

const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = ['src', 'activities', 'workflows'].flatMap(sources);
const matching = (pattern: RegExp) =>
  files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );

describe('Temporal wiring in the sources', () => {
  it('builds workflow ids in src/temporal/workflow-ids.ts only', () => {
    const built = matching(
      /`(payin|payout|refund|webhook|event|recovery-sweep):\$\{|\$\{(b\.type|kind|opts\.kind)\}:\$\{(opts\.)?merchantId\}/,
    );
    expect(built.filter((line) => !line.startsWith(join('src', 'temporal', 'workflow-ids.ts')))).toEqual([]);
  });

  it('starts workflows by function reference, the webhook delivery and the event publication excepted', () => {
    const byName = matching(
      /workflow\.(start|execute|signalWithStart)(<[^>]*>)?\(['"`]|startChild(<[^>]*>)?\(['"`]|executeChild(<[^>]*>)?\(['"`]|workflowType: ['"`]|startOnce(<[^>]*>)?\([^,]+, ['"`]/,
    );
    expect(byName).toEqual([]);
    // The delivery is started by the event activities it runs: by its registered name, never a workflow import.
    expect(matching(/, webhookDeliveryWorkflowType,/).map((l) => l.split(':')[0])).toEqual([
      join('src', 'webhooks', 'dispatch.ts'),
    ]);
    // The reconciliation's corrections publish their event likewise (src/reconciliation sits below
    // the workflows), under the name and signature src/events/publish-event.ts states.
    expect(matching(/, publishEventWorkflowType,/).map((l) => l.split(':')[0])).toEqual([
      join('src', 'reconciliation', 'ports.ts'),
    ]);
    const typed: PublishEventWorkflow = publishEventWorkflow;
    expect(typed.name).toBe(publishEventWorkflowType);
  });

  it('wires in src/main only: no other wiring module, and nothing below it imports it', () => {
    expect(files.filter((f) => /wiring\.ts$/.test(f))).toEqual([join('src', 'main', 'wiring.ts')]);
    // The CLI is an entry point of its own (bin/payments.js): it connects through src/main/temporal.
    const importsMain = matching(/from '(\.\.\/)+(src\/)?main\//).filter(
      (line) => !line.startsWith(join('src', 'main') + '/') && !line.startsWith(join('src', 'cli') + '/'),
    );
    expect(importsMain.map((l) => relative('.', l))).toEqual([]);
  });
});
