import type fc from 'fast-check';

// Interleavings of store calls chosen by fast-check's scheduler (issue 28 §8). A gated call starts
// only when the scheduler picks it, and the next pick waits until it has finished: each call against
// the real store is one step, and the scheduler orders the steps of two or three racing attempts in
// every way it likes (the model of FerretDB, where each operation is atomic on its own and nothing
// spans two). Gate only calls that make no gated call themselves, or the wait never ends.

export interface Interleaving {
  /** `fn`, each call of it a step the scheduler places. */
  gate<A extends unknown[], R>(label: string, fn: (...a: A) => Promise<R>): (...a: A) => Promise<R>;
  /** `target` with every method (but those in `skip`) gated, labelled `<label>.<method>`. */
  gated<T extends object>(target: T, label: string, skip?: string[]): T;
  /** Runs the scheduled steps, one at a time, until `p` settles; answers its value. */
  run<T>(p: Promise<T>): Promise<T>;
}

export function interleaving(s: fc.Scheduler): Interleaving {
  let inflight = 0;
  const gate =
    <A extends unknown[], R>(label: string, fn: (...a: A) => Promise<R>) =>
    (...a: A): Promise<R> =>
      s.schedule(Promise.resolve(), label).then(async () => {
        inflight++;
        try {
          return await fn(...a);
        } finally {
          inflight--;
        }
      });
  // After a step is let go (its `then` runs in the next microtasks), wait for it to end.
  const oneStep = async (release: () => Promise<unknown>) => {
    await release();
    await new Promise((r) => setImmediate(r));
    while (inflight > 0) await new Promise((r) => setTimeout(r, 1));
  };
  return {
    gate,
    gated<T extends object>(target: T, label: string, skip: string[] = []): T {
      return new Proxy(target, {
        get(t, p) {
          const v: unknown = Reflect.get(t, p, t);
          if (typeof v !== 'function') return v;
          const f = (v as (...a: unknown[]) => unknown).bind(t);
          if (skip.includes(String(p))) return f;
          return gate(`${label}.${String(p)}`, async (...a: unknown[]) => f(...a));
        },
      });
    },
    run: (p) => s.waitFor(p, oneStep),
  };
}
