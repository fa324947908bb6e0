// One user action = one X-Idempotency-Key, made when the user acts and reused by the page's own
// retries of that action (a network failure, a 503, a request still in progress), never by a
// second click, which is a new action.
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { isTransient } from './api/http';

export function useAction<V, R>(
  fn: (vars: V, idempotencyKey: string) => Promise<R>,
  onSuccess?: (result: R, vars: V) => void,
) {
  const mutation = useMutation({
    mutationFn: ({ vars, key }: { vars: V; key: string }) => fn(vars, key),
    retry: (count, error) => count < 2 && isTransient(error),
    retryDelay: (count) => 500 * 2 ** count,
    onSuccess: (result, { vars }) => onSuccess?.(result, vars),
  });
  const { mutate, mutateAsync } = mutation;
  const run = useCallback((vars: V) => mutate({ vars, key: crypto.randomUUID() }), [mutate]);
  const runAsync = useCallback((vars: V) => mutateAsync({ vars, key: crypto.randomUUID() }), [mutateAsync]);
  return { ...mutation, run, runAsync };
}

/** Cursor pagination: the cursors of the pages seen, so "previous" goes back without the server's help. */
export function useCursorPages() {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  const cursor = stack[stack.length - 1];
  return {
    cursor,
    page: stack.length,
    hasPrevious: stack.length > 1,
    next: (nextCursor: string) => setStack((s) => [...s, nextCursor]),
    previous: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
    reset: () => setStack([undefined]),
  };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/**
 * A list read page by page: the page shown stays on screen while the next one loads. `refetchEvery`
 * reads the page again after the milliseconds it gives for what the page shows (false: not again).
 */
export function useCursorQuery<T>(
  queryKey: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<T>,
  refetchEvery?: (data: T | undefined) => number | false,
) {
  const pages = useCursorPages();
  const query = useQuery({
    queryKey: [...queryKey, pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () => fetchPage(pages.cursor),
    ...(refetchEvery ? { refetchInterval: (q: { state: { data?: T } }) => refetchEvery(q.state.data) } : {}),
  });
  return { query, pages };
}
