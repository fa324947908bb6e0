import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors, ProblemError } from '../api/http';
import { useAction } from '../actions';
import { Field } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';
import { adoptSession } from '../session';

/** Only a path inside the dashboard: `next` comes from the address bar. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next.replace(/^\/dashboard(?=\/|$)/, '') || '/';
}

export function SignIn() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [needsTotp, setNeedsTotp] = useState(false);
  const totpRef = useRef<HTMLInputElement>(null);

  const signIn = useAction(dashboardApi.signIn, (session) => {
    adoptSession(client, session);
    void navigate(safeNext(params.get('next')), { replace: true });
  });
  const error = signIn.error;
  const totpAsked = error instanceof ProblemError && error.code === 'TOTP_REQUIRED';
  useEffect(() => {
    if (totpAsked) setNeedsTotp(true);
  }, [totpAsked]);
  // The second step's field takes the focus once drawn.
  useEffect(() => {
    if (needsTotp) totpRef.current?.focus();
  }, [needsTotp]);
  const errors = fieldErrors(error);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.run(needsTotp ? { email, password, totp } : { email, password });
  };

  return (
    <PublicShell title={needsTotp ? t('signIn.totpTitle') : t('signIn.title')}>
      <form onSubmit={submit} noValidate>
        {!totpAsked && <ProblemAlert error={error} shownFields={['email', 'password', 'totp']} />}
        {!needsTotp ? (
          <>
            <Field label={t('fields.email')} error={errors.email}>
              {(p) => (
                <input
                  {...p}
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              )}
            </Field>
            <Field label={t('fields.password')} error={errors.password}>
              {(p) => (
                <input
                  {...p}
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                />
              )}
            </Field>
          </>
        ) : (
          <Field label={t('fields.totp')} hint={t('signIn.totpHint')} error={errors.totp}>
            {(p) => (
              <input
                {...p}
                ref={totpRef}
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]*"
                maxLength={8}
                required
                value={totp}
                onChange={(e) => setTotp(e.target.value.trim())}
              />
            )}
          </Field>
        )}
        <div className="actions">
          <button type="submit" className="button-primary" disabled={signIn.isPending}>
            {t('signIn.submit')}
          </button>
        </div>
      </form>
      <p>
        <Link to="/reset-password">{t('signIn.forgot')}</Link>
      </p>
    </PublicShell>
  );
}
