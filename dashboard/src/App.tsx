// The page's screens and their addresses under /dashboard (docs/dashboard.md, The page).
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { createBrowserRouter, Link, Navigate, RouterProvider, type RouteObject } from 'react-router';
import type { Permission } from './api/dashboard';
import { ProblemError, isTransient, onSessionRequired } from './api/http';
import { Layout } from './components/Layout';
import { Loading } from './components/Loading';
import { SignIn } from './pages/SignIn';
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

/**
 * Each screen is its own script, fetched when first shown: the sign-in page and the frame load
 * without the tables, forms and chart of the others (issue 44 §3: a phone on a slow network).
 */
function screen<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}
const Home = screen(() => import('./pages/Home'), 'Home');
const Alerts = screen(() => import('./pages/Alerts'), 'Alerts');
const Availability = screen(() => import('./pages/Availability'), 'Availability');
const BalanceHistory = screen(() => import('./pages/BalanceHistory'), 'BalanceHistory');
const Transactions = screen(() => import('./pages/Transactions'), 'Transactions');
const Transaction = screen(() => import('./pages/Transaction'), 'Transaction');
const Refunds = screen(() => import('./pages/Lists'), 'Refunds');
const PayoutList = screen(() => import('./pages/Lists'), 'PayoutList');
const Payouts = screen(() => import('./pages/Payouts'), 'Payouts');
const PaymentLinks = screen(() => import('./pages/PaymentLinks'), 'PaymentLinks');
const PaymentLinkDetail = screen(() => import('./pages/PaymentLinks'), 'PaymentLinkDetail');
const Statements = screen(() => import('./pages/Statements'), 'Statements');
const Developers = screen(() => import('./pages/Developers'), 'Developers');
const Keys = screen(() => import('./pages/Developers'), 'Keys');
const Webhooks = screen(() => import('./pages/Webhooks'), 'Webhooks');
const RequestLog = screen(() => import('./pages/RequestLog'), 'RequestLog');
const Team = screen(() => import('./pages/Team'), 'Team');
const Security = screen(() => import('./pages/Security'), 'Security');
const Invite = screen(() => import('./pages/Invite'), 'Invite');
const PasswordResetRequest = screen(() => import('./pages/PasswordReset'), 'PasswordResetRequest');
const PasswordResetComplete = screen(() => import('./pages/PasswordReset'), 'PasswordResetComplete');

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
  { path: 'alerts', element: <Alerts /> },
  { path: 'availability', element: <Availability /> },
  { path: 'transactions', element: <Transactions /> },
  { path: 'transactions/:type/:reference', element: <Transaction /> },
  { path: 'refunds', element: <Refunds /> },
  { path: 'sent-payouts', element: <PayoutList /> },
  { path: 'balance-history', element: <BalanceHistory /> },
  { path: 'payment-links', element: <PaymentLinks /> },
  { path: 'payment-links/:id', element: <PaymentLinkDetail /> },
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
      <Suspense fallback={<Loading />}>
        <RouterProvider router={router} />
      </Suspense>
    </QueryClientProvider>
  );
}
