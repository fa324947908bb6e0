import type { Express } from 'express';

// Work an API process does on its own clock (the alerts' mail sweep): one pass at a time, on a timer
// that does not hold the process open, stopped with the API before its connections close.

interface Job {
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  stopped: boolean;
}
const jobsOf = new WeakMap<Express, Job[]>();

/** Runs `pass` every `everyMs` (after the previous pass ended); 0: never. */
export function everyInBackground(
  app: Express,
  everyMs: number,
  pass: () => Promise<unknown>,
  onError: (err: unknown) => void,
): void {
  if (everyMs <= 0) return;
  const job: Job = { timer: null, running: null, stopped: false };
  const next = () => {
    if (job.stopped) return;
    job.timer = setTimeout(() => {
      job.running = pass()
        .then(() => undefined, onError)
        .finally(() => {
          job.running = null;
          next();
        });
    }, everyMs);
    job.timer.unref();
  };
  next();
  jobsOf.set(app, [...(jobsOf.get(app) ?? []), job]);
}

/** Stops the app's jobs, waiting for a pass under way. */
export async function stopBackground(app: Express): Promise<void> {
  for (const job of jobsOf.get(app) ?? []) {
    job.stopped = true;
    if (job.timer) clearTimeout(job.timer);
    await job.running;
  }
}
