import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { ProblemError } from '../api/http';
import { useAction } from '../actions';
import { EmailField, TotpField } from '../components/AccountFields';
import { TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';
import { useFields } from '../hooks/useFields';
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
  const [needsTotp, setNeedsTotp] = useState(false);
  // Without the phone: a recovery code goes where the TOTP code goes (`totp`).
  const [recovery, setRecovery] = useState(false);
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
  const form = useFields({ email: '', password: '', totp: '' }, error);
  const { email, password } = form.values;

  return (
    <PublicShell title={needsTotp ? t('signIn.totpTitle') : t('signIn.title')}>
      <Form
        onSubmit={() => signIn.run(needsTotp ? form.values : { email, password })}
        submit={t('signIn.submit')}
        disabled={signIn.isPending}
      >
        {!totpAsked && <ProblemAlert error={error} shownFields={['email', 'password', 'totp']} />}
        {!needsTotp ? (
          <>
            <EmailField {...form.bind('email')} />
            <TextField
              label={t('fields.password')}
              type="password"
              autoComplete="current-password"
              required
              {...form.bind('password')}
            />
          </>
        ) : recovery ? (
          <TextField
            label={t('signIn.recoveryCode')}
            hint={t('signIn.recoveryHint')}
            autoComplete="off"
            spellCheck={false}
            maxLength={24}
            required
            {...form.bind('totp')}
          />
        ) : (
          <TotpField ref={totpRef} hint={t('signIn.totpHint')} pattern="[0-9]*" {...form.bind('totp')} />
        )}
      </Form>
      {needsTotp && (
        <p>
          <button
            type="button"
            className="button-quiet"
            onClick={() => {
              setRecovery((r) => !r);
              form.set('totp', '');
            }}
          >
            {recovery ? t('signIn.useTotp') : t('signIn.useRecoveryCode')}
          </button>
        </p>
      )}
      <p>
        <Link to="/reset-password">{t('signIn.forgot')}</Link>
      </p>
    </PublicShell>
  );
}
