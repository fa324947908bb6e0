// Limits counted in fixed windows (src/persistence/shared-limits.ts: a minute, aligned to the
// clock) start afresh at each window's end: a test that fills a window must not straddle one.

/** Waits for the next window when less than `marginMs` is left of the current `windowMs` one. */
export async function awayFromWindowEnd(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((res) => setTimeout(res, left + 50));
}
