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
