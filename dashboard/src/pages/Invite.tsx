import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { Field } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';
import { adoptSession } from '../session';

export function Invite() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => dashboardApi.invitation(token),
    retry: false,
  });
  const accept = useAction(
    (body: { name: string; password: string }, key: string) =>
      dashboardApi.acceptInvitation(token, body, key),
    (session) => {
      adoptSession(client, session);
      void navigate('/', { replace: true });
    },
  );
  const errors = fieldErrors(accept.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    accept.run({ name, password });
  };

  return (
    <PublicShell title={t('invite.title')}>
      {invitation.isPending && <p>{t('common.loading')}</p>}
      {invitation.isError && <ProblemAlert error={invitation.error} />}
      {invitation.data && (
        <>
          <p>
            {invitation.data.invitedBy
              ? t('invite.by', {
                  name: invitation.data.invitedBy,
                  merchant: invitation.data.merchant.name,
                  role: t(`roles.${invitation.data.role}`),
                })
              : t('invite.byOperator', {
                  merchant: invitation.data.merchant.name,
                  role: t(`roles.${invitation.data.role}`),
                })}
          </p>
          <form onSubmit={submit} noValidate>
            <ProblemAlert error={accept.error} shownFields={['name', 'password']} />
            <Field label={t('fields.email')}>
              {(p) => (
                <input {...p} type="email" value={invitation.data.email} readOnly autoComplete="username" />
              )}
            </Field>
            <Field label={t('fields.name')} error={errors.name}>
              {(p) => (
                <input
                  {...p}
                  autoComplete="name"
                  required
                  value={name}
                  onChange={(e) => setName(e.target.value)}
                />
              )}
            </Field>
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
              <button type="submit" className="button-primary" disabled={accept.isPending}>
                {t('invite.submit')}
              </button>
            </div>
          </form>
        </>
      )}
    </PublicShell>
  );
}
