import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { useAction } from '../actions';
import { NewPasswordField } from '../components/AccountFields';
import { TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ProblemAlert } from '../components/ProblemAlert';
import { PublicShell } from '../components/PublicShell';
import { useFields } from '../hooks/useFields';
import { adoptSession } from '../session';

export function Invite() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
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
  const form = useFields({ name: '', password: '' }, accept.error);
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
          <Form
            onSubmit={() => accept.run(form.values)}
            submit={t('invite.submit')}
            disabled={accept.isPending}
          >
            <ProblemAlert error={accept.error} shownFields={['name', 'password']} />
            <TextField
              label={t('fields.email')}
              type="email"
              value={invitation.data.email}
              readOnly
              autoComplete="username"
            />
            <TextField label={t('fields.name')} autoComplete="name" required {...form.bind('name')} />
            <NewPasswordField {...form.bind('password')} />
          </Form>
        </>
      )}
    </PublicShell>
  );
}
