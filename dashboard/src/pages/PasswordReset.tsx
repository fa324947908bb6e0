import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { EmailField, NewPasswordField } from '../components/AccountFields';
import { Form } from '../components/Form';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';

export function PasswordResetRequest() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const reset = useAction(dashboardApi.passwordReset);
  return (
    <PublicShell title={t('reset.title')}>
      {reset.isSuccess ? (
        <p role="status">{t('reset.sent')}</p>
      ) : (
        <Form onSubmit={() => reset.run(email)} submit={t('reset.submit')} disabled={reset.isPending}>
          <p>{t('reset.intro')}</p>
          <ProblemAlert error={reset.error} shownFields={['email']} />
          <EmailField value={email} onChange={setEmail} error={fieldErrors(reset.error).email} />
        </Form>
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
  return (
    <PublicShell title={t('reset.completeTitle')}>
      {complete.isSuccess ? (
        <p role="status">
          {t('reset.done')} <Link to="/sign-in">{t('signIn.submit')}</Link>
        </p>
      ) : (
        <Form
          onSubmit={() => complete.run({ token, password })}
          submit={t('reset.completeSubmit')}
          disabled={complete.isPending}
        >
          <ProblemAlert error={complete.error} shownFields={['password']} />
          <NewPasswordField
            value={password}
            onChange={setPassword}
            error={fieldErrors(complete.error).password}
          />
        </Form>
      )}
    </PublicShell>
  );
}
