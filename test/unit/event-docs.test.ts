import { readFileSync } from 'node:fs';
import { eventTypes } from '../../src/events/catalogue';
import { openApiDocument } from '../../src/api/openapi/document';
import { eventDocsPath, eventTypesTable, withEventTypes } from '../../scripts/generate-event-docs';

// docs/events.md lists the event types the service sends: its table is generated from the catalogue,
// and this fails when someone changes one without the other (npx tsx scripts/generate-event-docs.ts).

describe('docs/events.md', () => {
  const page = readFileSync(eventDocsPath, 'utf8');

  it('shows the event types of the catalogue, as the generator writes them', () => {
    expect(withEventTypes(page)).toBe(page);
    for (const type of eventTypes) expect(eventTypesTable()).toContain(`| \`${type}\` |`);
  });

  it('lists as many types as the OpenAPI document', () => {
    const doc = JSON.stringify(openApiDocument());
    const documented = eventTypes.filter((t) => doc.includes(`"${t}"`));
    expect(documented).toEqual([...eventTypes]);
    const rows = page.match(/^\| `[a-z._]+` \|/gm) ?? [];
    expect(rows).toHaveLength(eventTypes.length);
  });
});
