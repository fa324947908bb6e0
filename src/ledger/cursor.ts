// A statement page's cursor: the chain position the next page starts below, opaque to callers.

export interface Cursor {
  seq: number;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify({ s: c.seq })).toString('base64url');
}

/** Null when the text is not a cursor this ledger issued. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { s?: unknown };
    if (typeof parsed.s === 'number' && Number.isSafeInteger(parsed.s) && parsed.s > 0)
      return { seq: parsed.s };
  } catch {
    // fall through
  }
  return null;
}
