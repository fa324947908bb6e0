import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { searchAttributes } from './search-attributes';

/**
 * Registers the project's search attributes where the server lacks them (the time-skipping test
 * server has no flag for it; the dev server gets them from its start flags).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  const existing = await connection.operatorService.listSearchAttributes({ namespace }).catch(() => null);
  const missing = Object.keys(searchAttributes).filter((name) => !existing?.customAttributes?.[name]);
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])),
  });
}
