import { AsyncLocalStorage } from 'node:async_hooks';
import { overlay, withChanges } from './state-versions';

// Records read or written inside one readOnce() call, by collection and id. The call is one activity
// of the records' single writer (a transaction's or a refund's workflow): what it read, then wrote,
// is the record's state for the rest of the call, so its later steps (the event after the state
// write) take it from here instead of reading it again. Outside a call, every read goes to the store.

const scope = new AsyncLocalStorage<Map<string, object>>();

/** Runs `fn` with one kept copy per record it reads (nested calls share the outer one). */
export function readOnce<T>(fn: () => Promise<T>): Promise<T> {
  return scope.getStore() ? fn() : scope.run(new Map(), fn);
}

/** Every function of `activities` run under readOnce(). */
export function readingOnce<A extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: A,
): A {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, (...args: never[]) => readOnce(() => fn(...args))]),
  ) as A;
}

/** Record reads and writes of one store (`collection`) through the current readOnce() call. */
export class ReadOnceScope<T extends object> {
  constructor(private readonly collection: string) {}

  private key(id: string): string {
    return `${this.collection}|${id}`;
  }

  /** The kept copy, or a read kept for the rest of the call. */
  async read(id: string, load: () => Promise<T | null>): Promise<T | null> {
    const known = scope.getStore();
    const held = known?.get(this.key(id)) as T | undefined;
    if (held) return structuredClone(held);
    const value = await load();
    if (known && value) known.set(this.key(id), structuredClone(value));
    return value;
  }

  /** A versioned write: applied, laid over the kept copy; not applied (a retry, a late one), forgotten. */
  wrote(id: string, applied: boolean, changes: Record<string, unknown>): void {
    const known = scope.getStore();
    const held = known?.get(this.key(id));
    if (held && applied) overlay(held, withChanges([], changes));
    else known?.delete(this.key(id));
  }

  /** Whether the current call keeps a copy of the record. */
  holds(id: string): boolean {
    return scope.getStore()?.has(this.key(id)) ?? false;
  }

  /** Keeps `value` as the record's state for the rest of the call (one it wrote and knows whole). */
  seed(id: string, value: T): void {
    scope.getStore()?.set(this.key(id), structuredClone(value));
  }

  /** Any other write: the kept copy is forgotten. */
  forget(id: string): void {
    scope.getStore()?.delete(this.key(id));
  }
}
