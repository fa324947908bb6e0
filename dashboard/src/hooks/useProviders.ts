import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/http';
import { useSession } from '../session';

/**
 * Every operator's state and routes as the service measures them (GET /v1/providers), in the
 * session's mode, read again every 30 s: the measures move by the minute. Home's routes table and
 * the availability screen share it, so opening one after the other asks once.
 */
export function useProviders() {
  const session = useSession();
  return useQuery({
    queryKey: ['providers', session.mode],
    queryFn: () => unwrap(api.GET('/v1/providers', {})),
    refetchInterval: 30_000,
  });
}
