import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { dashboardApi, type Permission } from '../api/dashboard';
import { useAction } from '../actions';
import { languages, type Language } from '../i18n';
import { adoptSession, forgetSession, useCan, useSession } from '../session';
import { useAlerts } from '../hooks/useAlerts';
import { ProblemAlert } from './ProblemAlert';
import { Loading } from './Loading';

const links: { to: string; key: string; permission: Permission }[] = [
  { to: '/', key: 'nav.home', permission: 'read' },
  { to: '/alerts', key: 'nav.alerts', permission: 'read' },
  { to: '/availability', key: 'nav.availability', permission: 'read' },
  { to: '/transactions', key: 'nav.transactions', permission: 'read' },
  { to: '/refunds', key: 'nav.refunds', permission: 'read' },
  { to: '/sent-payouts', key: 'nav.payoutList', permission: 'read' },
  { to: '/balance-history', key: 'nav.balances', permission: 'read' },
  { to: '/payment-links', key: 'nav.paymentLinks', permission: 'read' },
  { to: '/payouts', key: 'nav.payouts', permission: 'payout' },
  { to: '/statements', key: 'nav.statements', permission: 'statement' },
  { to: '/developers', key: 'nav.developers', permission: 'developer' },
  { to: '/team', key: 'nav.team', permission: 'team' },
];

export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const current = (i18n.resolvedLanguage ?? 'en') as Language;
  return (
    <div className="language-switch">
      <label htmlFor="language">{t('layout.language')}</label>
      <select id="language" value={current} onChange={(e) => void i18n.changeLanguage(e.target.value)}>
        {languages.map((l) => (
          <option key={l} value={l} lang={l}>
            {l === 'en' ? 'English' : 'Français'}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Layout() {
  const { t } = useTranslation();
  const session = useSession();
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const alertCount = useAlerts().data?.data.length ?? 0;

  // After a navigation, focus goes to the new page's main region (screen readers hear the new page).
  useEffect(() => {
    mainRef.current?.focus();
  }, [location.pathname]);

  const setMode = useAction(dashboardApi.setMode, (next) => adoptSession(client, next));
  // A refused switch is about the screen it was asked from: the next screen starts without it.
  const { reset: forgetModeRefusal } = setMode;
  useEffect(() => {
    forgetModeRefusal();
  }, [location.pathname, forgetModeRefusal]);
  const signOut = useAction(
    (_: void, key: string) => dashboardApi.signOut(key),
    () => {
      forgetSession(client);
      void navigate('/sign-in');
    },
  );
  const live = session.mode === 'live';
  useEffect(() => {
    const name = t('app.name');
    document.title = live ? `${t('layout.liveLabel')} · ${name}` : name;
  }, [live, t]);
  // The team requires TOTP and this member has none: the server refuses everything but its set-up.
  if (session.totpSetupRequired && location.pathname !== '/security')
    return <Navigate to="/security" replace />;

  return (
    // Live mode is unmistakable on every screen: a red bar that stays at the top as the page scrolls,
    // a red frame around the window, and the window's title starting with its label.
    <div className={live ? 'app app-live' : 'app'}>
      <a className="skip-link" href="#main">
        {t('layout.skip')}
      </a>
      {live && (
        <div className="live-banner" role="status">
          <strong className="live-label">{t('layout.liveLabel')}</strong> {t('layout.liveBanner')}
        </div>
      )}
      <header>
        {!live && (
          <div className="test-banner" role="status">
            {t('layout.testBanner')}
          </div>
        )}
        <div className="top">
          <Link to="/" className="brand">
            {session.merchant.name}
          </Link>
          <div className="top-controls">
            <button
              type="button"
              role="switch"
              aria-checked={live}
              className={live ? 'mode-switch mode-live' : 'mode-switch'}
              disabled={setMode.isPending}
              onClick={() => setMode.run(live ? 'test' : 'live')}
            >
              {t('layout.liveMode')}: {live ? t('layout.on') : t('layout.off')}
            </button>
            <LanguageSwitch />
            <span className="who">
              {session.member.name} ({t(`roles.${session.role}`)})
            </span>
            <Link to="/security">{t('nav.security')}</Link>
            <button type="button" onClick={() => signOut.run()} disabled={signOut.isPending}>
              {t('layout.signOut')}
            </button>
          </div>
        </div>
        {setMode.error != null && (
          <div className="page-alert">
            <ProblemAlert error={setMode.error} />
            {!session.totpEnabled && <Link to="/security">{t('security.setUp')}</Link>}
          </div>
        )}
      </header>
      <div className="body">
        <nav aria-label={t('layout.navigation')} className="side">
          <ul>
            {links
              .filter((l) => can(l.permission))
              .map((l) => (
                <li key={l.to}>
                  <NavLink to={l.to} end={l.to === '/'}>
                    {t(l.key)}
                    {l.to === '/alerts' && alertCount > 0 && (
                      <span className="nav-count" data-testid="alert-count">
                        {alertCount}
                      </span>
                    )}
                  </NavLink>
                </li>
              ))}
          </ul>
        </nav>
        <main id="main" ref={mainRef} tabIndex={-1}>
          {/* A new mode starts each screen afresh: no filter, cursor or list carried across modes. */}
          <Suspense fallback={<Loading />}>
            <Outlet key={session.mode} />
          </Suspense>
        </main>
      </div>
    </div>
  );
}
