import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventDescriptions, eventTypes } from '../src/events/catalogue';

// Writes docs/events.md's table of event types from the catalogue (src/events/catalogue.ts), between
// `<!-- generated:event-types -->` and `<!-- /generated -->`; test/unit/event-docs.test.ts fails
// when the page and the catalogue differ. Run: npx tsx scripts/generate-event-docs.ts

export const eventDocsPath = join(__dirname, '..', 'docs', 'events.md');
const open = '<!-- generated:event-types -->';
const close = '<!-- /generated -->';

/** One row per type, in the catalogue's order; prettier leaves this layout as it is. */
export function eventTypesTable(): string {
  const rows = eventTypes.map(
    (t) => `| \`${t}\` | ${eventDescriptions[t].when} | ${eventDescriptions[t].data} |`,
  );
  return ['| Type | When | `data` |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The page with its generated part replaced by the catalogue's table. */
export function withEventTypes(page: string): string {
  const start = page.indexOf(open);
  const end = page.indexOf(close);
  if (start < 0 || end < start) throw new Error(`docs/events.md has no ${open} … ${close} section`);
  return `${page.slice(0, start + open.length)}\n\n${eventTypesTable()}\n\n${page.slice(end)}`;
}

if (require.main === module) {
  const page = readFileSync(eventDocsPath, 'utf8');
  const next = withEventTypes(page);
  if (next !== page) writeFileSync(eventDocsPath, next);
  console.log(next === page ? 'docs/events.md is up to date' : 'docs/events.md: event types written');
}
