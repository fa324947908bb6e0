import { useQuery } from '@tanstack/react-query';
import { dashboardApi } from '../api/dashboard';
import { useCan, useSession } from '../session';

/**
 * What needs the team's attention in the session's mode (GET /dashboard/api/alerts), read again
 * every minute: the menu's count and the alerts screen share it.
 */
export function useAlerts() {
  const session = useSession();
  const can = useCan();
  return useQuery({
    queryKey: ['alerts', session.mode],
    queryFn: dashboardApi.alerts,
    refetchInterval: 60_000,
    enabled: can('read'),
  });
}
