// The member's session: who, which merchant, which role and permissions, which mode, and the CSRF
// token every change sends. The page hides what the role may not do; the server refuses it anyway.
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { dashboardApi, type Permission, type Session } from './api/dashboard';
import { ProblemError, setCsrfToken } from './api/http';

const SessionContext = createContext<Session | null>(null);

export const sessionKey = ['session'] as const;

/** Stores a session the server answered (sign-in, mode switch, …) and drops data of the previous one. */
export function adoptSession(client: QueryClient, session: Session): void {
  const previous = client.getQueryData<Session>(sessionKey);
  setCsrfToken(session.csrfToken);
  // Test data is never shown in live (nor another member's): what was cached for the other mode goes.
  if (!previous || previous.mode !== session.mode || previous.member.id !== session.member.id)
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== sessionKey[0] });
  client.setQueryData(sessionKey, session);
}

export function forgetSession(client: QueryClient): void {
  setCsrfToken(null);
  client.clear();
}

export function useSessionQuery() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: async () => {
      const session = await dashboardApi.session();
      setCsrfToken(session.csrfToken);
      return session;
    },
    retry: (count, error) =>
      count < 2 && !(error instanceof ProblemError && error.status > 0 && error.status < 500),
    staleTime: 60_000,
  });
}

/** Renders its children for a signed-in member; sends others to sign-in, back here afterwards. */
export function RequireSession(props: { children: ReactNode }) {
  const { t } = useTranslation();
  const query = useSessionQuery();
  const location = useLocation();
  if (query.isPending)
    return (
      <main id="main" className="centered" aria-busy="true">
        <p>{t('common.loading')}</p>
      </main>
    );
  if (query.isError) {
    if (query.error instanceof ProblemError && query.error.status === 401) {
      const next = `${location.pathname}${location.search}`;
      return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
    }
    return (
      <main id="main" className="centered">
        <h1>{t('problem.unexpected')}</h1>
        <p role="alert">{query.error.message}</p>
        <button type="button" onClick={() => void query.refetch()}>
          {t('common.retry')}
        </button>
      </main>
    );
  }
  return <SessionContext.Provider value={query.data}>{props.children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside RequireSession');
  return session;
}

export function useCan(): (permission: Permission) => boolean {
  const session = useSession();
  return (permission) => session.permissions.includes(permission);
}

export function useSessionClient() {
  return useQueryClient();
}
