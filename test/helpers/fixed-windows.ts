// Limits counted in fixed windows (src/persistence/shared-limits.ts: a minute, aligned to the
// clock) start afresh at each window's end: a test that fills a window must not straddle one.
// A test's calls take a few seconds even on a loaded machine; a wider margin only waits longer (on
// average margin² / 2·window: 2 s for 15 s of a minute, 15 s for 30 s).

/** Waits for the next window when less than `marginMs` (15 s by default) is left of the current `windowMs` one. */
export async function awayFromWindowEnd(windowMs: number, marginMs = 15_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((res) => setTimeout(res, left + 50));
}
