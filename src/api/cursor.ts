import { z } from 'zod';
import { fieldMessages, problemAt } from '../contract/field-messages';

// Opaque page cursors: base64url JSON of the position of the last item returned.

export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** A cursor that does not decode to the expected position is a 400 on the `cursor` parameter. */
export function decodeCursor<S extends z.ZodType>(schema: S, text: string): z.infer<S> {
  try {
    return schema.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw problemAt('VALIDATION_ERROR', 'cursor', fieldMessages.invalidCursor);
  }
}

/** A position in a newest-first list: the last item's creation time and id. */
const newestFirstPosition = z.object({ t: z.number().int(), i: z.string().max(100) });
export interface NewestFirstPosition {
  createdAt: Date;
  id: string;
}

/** The position a newest-first list's cursor names (none on the first page). */
export function decodeNewestFirst(cursor: string | undefined): NewestFirstPosition | undefined {
  if (!cursor) return undefined;
  const p = decodeCursor(newestFirstPosition, cursor);
  return { createdAt: new Date(p.t), id: p.i };
}

export function encodeNewestFirst(last: NewestFirstPosition): string {
  return encodeCursor({ t: last.createdAt.getTime(), i: last.id });
}
