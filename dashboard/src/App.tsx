// The page's screens and their addresses under /dashboard (docs/dashboard.md, The page).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Link, Navigate, RouterProvider, type RouteObject } from 'react-router';
import type { Permission } from './api/dashboard';
import { ProblemError, isTransient, onSessionRequired } from './api/http';
import { Layout } from './components/Layout';
import { Developers, Keys } from './pages/Developers';
import { Home } from './pages/Home';
import { PayoutList, Refunds } from './pages/Lists';
import { Invite } from './pages/Invite';
import { PasswordResetComplete, PasswordResetRequest } from './pages/PasswordReset';
import { Payouts } from './pages/Payouts';
import { RequestLog } from './pages/RequestLog';
import { Security } from './pages/Security';
import { SignIn } from './pages/SignIn';
import { Statements } from './pages/Statements';
import { Team } from './pages/Team';
import { Transaction } from './pages/Transaction';
import { Transactions } from './pages/Transactions';
import { Webhooks } from './pages/Webhooks';
import { RequireSession, forgetSession, useCan } from './session';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) is an answer, not a failure to retry.
      retry: (count, error) => count < 2 && (!(error instanceof ProblemError) || isTransient(error)),
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
  },
});

function NotFound() {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t('notFound.title')}</h1>
      <p>
        <Link to="/">{t('nav.home')}</Link>
      </p>
    </>
  );
}

/** A screen the role may not use shows why instead (the server would refuse its calls anyway). */
function Allowed(props: { permission: Permission; children: ReactNode }) {
  const { t } = useTranslation();
  const can = useCan();
  if (can(props.permission)) return props.children;
  return (
    <>
      <h1>{t('forbidden.title')}</h1>
      <p>{t('forbidden.detail')}</p>
    </>
  );
}

const screens: RouteObject[] = [
  { index: true, element: <Home /> },
  { path: 'transactions', element: <Transactions /> },
  { path: 'transactions/:type/:reference', element: <Transaction /> },
  { path: 'refunds', element: <Refunds /> },
  { path: 'sent-payouts', element: <PayoutList /> },
  {
    path: 'payouts',
    element: (
      <Allowed permission="payout">
        <Payouts />
      </Allowed>
    ),
  },
  {
    path: 'statements',
    element: (
      <Allowed permission="statement">
        <Statements />
      </Allowed>
    ),
  },
  {
    path: 'developers',
    element: (
      <Allowed permission="developer">
        <Developers />
      </Allowed>
    ),
    children: [
      { index: true, element: <Keys /> },
      { path: 'webhooks', element: <Webhooks /> },
      { path: 'requests', element: <RequestLog /> },
    ],
  },
  {
    path: 'team',
    element: (
      <Allowed permission="team">
        <Team />
      </Allowed>
    ),
  },
  { path: 'security', element: <Security /> },
  { path: '*', element: <NotFound /> },
];

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignIn /> },
    { path: '/invitations/:token', element: <Invite /> },
    { path: '/reset-password', element: <PasswordResetRequest /> },
    { path: '/reset-password/:token', element: <PasswordResetComplete /> },
    {
      path: '/',
      element: (
        <RequireSession>
          <Layout />
        </RequireSession>
      ),
      children: screens,
    },
    { path: '*', element: <Navigate to="/" replace /> },
  ],
  { basename: '/dashboard' },
);

// A 401 SESSION_REQUIRED from any call: forget what was shown and sign in again, back here after.
onSessionRequired(() => {
  const { search } = router.state.location;
  // The router's location carries the basename; the `next` address is inside the app.
  const pathname = router.state.location.pathname.replace(/^\/dashboard(?=\/|$)/, '') || '/';
  if (['/sign-in', '/invite', '/reset-password'].some((p) => pathname.startsWith(p))) return;
  forgetSession(queryClient);
  void router.navigate(`/sign-in?next=${encodeURIComponent(pathname + search)}`, { replace: true });
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
