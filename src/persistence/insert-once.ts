// A document inserted once under its `_id`: of two requests inserting the same one, the second finds
// the first's (the unique `_id` decides; FerretDB has no transactions to do it otherwise).

export const isDuplicateKey = (err: unknown): boolean => (err as { code?: number } | null)?.code === 11000;

export async function insertOnce<T>(
  insert: () => Promise<unknown>,
  stored: () => Promise<T | null>,
  fresh: T,
): Promise<{ created: boolean; value: T }> {
  try {
    await insert();
    return { created: true, value: fresh };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const existing = await stored();
    if (!existing) throw err;
    return { created: false, value: existing };
  }
}
