import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { Field } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';

export function PasswordResetRequest() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const reset = useAction(dashboardApi.passwordReset);
  const errors = fieldErrors(reset.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    reset.run(email);
  };
  return (
    <PublicShell title={t('reset.title')}>
      {reset.isSuccess ? (
        <p role="status">{t('reset.sent')}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <p>{t('reset.intro')}</p>
          <ProblemAlert error={reset.error} shownFields={['email']} />
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
          <div className="actions">
            <button type="submit" className="button-primary" disabled={reset.isPending}>
              {t('reset.submit')}
            </button>
          </div>
        </form>
      )}
      <p>
        <Link to="/sign-in">{t('reset.backToSignIn')}</Link>
      </p>
    </PublicShell>
  );
}

export function PasswordResetComplete() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const [password, setPassword] = useState('');
  const complete = useAction(dashboardApi.passwordResetComplete);
  const errors = fieldErrors(complete.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    complete.run({ token, password });
  };
  return (
    <PublicShell title={t('reset.completeTitle')}>
      {complete.isSuccess ? (
        <p role="status">
          {t('reset.done')} <Link to="/sign-in">{t('signIn.submit')}</Link>
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <ProblemAlert error={complete.error} shownFields={['password']} />
          <Field label={t('fields.newPassword')} hint={t('fields.passwordHint')} error={errors.password}>
            {(p) => (
              <input
                {...p}
                type="password"
                autoComplete="new-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          <div className="actions">
            <button type="submit" className="button-primary" disabled={complete.isPending}>
              {t('reset.completeSubmit')}
            </button>
          </div>
        </form>
      )}
    </PublicShell>
  );
}
