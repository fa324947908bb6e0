import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { NewPasswordField, TotpField } from '../components/AccountFields';
import { CopyButton } from '../components/CopyButton';
import { TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ConfirmModal } from '../components/Modal';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { adoptSession, forgetSession, useSession } from '../session';

// The member's own account (docs/dashboard.md, Account): two-step verification and its recovery
// codes, the password, and where the member is signed in.

const accountKey = ['account'] as const;
const sessionsKey = ['account-sessions'] as const;

/** Recovery codes, shown once: to copy or download now. */
function RecoveryCodesShown(props: { codes: string[] }) {
  const { t } = useTranslation();
  const text = `${props.codes.join('\n')}\n`;
  const href = `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
  return (
    <div className="recovery-codes" role="region" aria-label={t('security.recoveryCodes')}>
      <p role="alert">{t('security.recoveryShownOnce')}</p>
      <ul className="codes">
        {props.codes.map((c) => (
          <li key={c}>
            <code className="secret">{c}</code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <CopyButton value={text} label={t('security.copyCodes')} />
        <a href={href} download="recovery-codes.txt" className="button">
          {t('security.downloadCodes')}
        </a>
      </div>
    </div>
  );
}

function TwoStep() {
  const { t } = useTranslation();
  const session = useSession();
  const client = useQueryClient();
  const [code, setCode] = useState('');
  const [newCode, setNewCode] = useState('');
  const account = useQuery({ queryKey: accountKey, queryFn: dashboardApi.account });
  const setup = useAction((_: void, key: string) => dashboardApi.totpSetup(key));
  const [shown, setShown] = useState<string[] | null>(null);
  // The answer carries the recovery codes (shown once); the cached session says TOTP is on.
  const enable = useAction(dashboardApi.totpEnable, (answer) => {
    setShown(answer.recoveryCodes);
    adoptSession(client, { ...session, totpEnabled: true, totpSetupRequired: false });
    void client.invalidateQueries({ queryKey: accountKey });
  });
  const regenerate = useAction(dashboardApi.regenerateRecoveryCodes, (answer) => {
    setShown(answer.recoveryCodes);
    setNewCode('');
    void client.invalidateQueries({ queryKey: accountKey });
  });

  return (
    <Section title={t('security.totp')}>
      {session.totpEnabled ? (
        <>
          <p role="status">{t('security.enabled')}</p>
          {shown && <RecoveryCodesShown codes={shown} />}
          <Section level={3} title={t('security.recoveryCodes')}>
            <p>{t('security.recoveryIntro')}</p>
            {account.data && (
              <p>{t('security.recoveryRemaining', { count: account.data.recoveryCodesRemaining })}</p>
            )}
            <Form
              onSubmit={() => regenerate.run(newCode)}
              submit={t('security.regenerate')}
              disabled={regenerate.isPending}
              quiet
            >
              <ProblemAlert error={regenerate.error} shownFields={['code']} />
              <TotpField
                value={newCode}
                onChange={setNewCode}
                hint={t('security.regenerateHint')}
                error={fieldErrors(regenerate.error).code}
              />
            </Form>
          </Section>
        </>
      ) : (
        <>
          <p>{session.totpSetupRequired ? t('security.requiredByTeam') : t('security.intro')}</p>
          <ProblemAlert error={setup.error} />
          {!setup.data ? (
            <button
              type="button"
              className="button-primary"
              onClick={() => setup.run()}
              disabled={setup.isPending}
            >
              {t('security.setUp')}
            </button>
          ) : (
            <Form onSubmit={() => enable.run(code)} submit={t('security.enable')} disabled={enable.isPending}>
              <figure className="qr">
                {/* The server draws the QR code as an SVG data URL (the CSP allows img-src data:). */}
                <img src={setup.data.qrCode} alt={t('security.qrLabel')} width={200} height={200} />
                <figcaption>
                  {t('security.secretText')} <code className="secret">{setup.data.secret}</code>
                </figcaption>
              </figure>
              <ProblemAlert error={enable.error} shownFields={['code']} />
              <TotpField value={code} onChange={setCode} error={fieldErrors(enable.error).code} />
            </Form>
          )}
        </>
      )}
    </Section>
  );
}

function PasswordChange() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [done, setDone] = useState(false);
  const change = useAction(dashboardApi.changePassword, (session) => {
    // A new session (new CSRF token); every other one is over.
    adoptSession(client, session);
    form.reset({ currentPassword: '', newPassword: '' });
    setDone(true);
    void client.invalidateQueries({ queryKey: sessionsKey });
  });
  const form = useFields({ currentPassword: '', newPassword: '' }, change.error);
  return (
    <Section title={t('security.password')}>
      <Form
        onSubmit={() => {
          setDone(false);
          change.run(form.values);
        }}
        submit={t('security.changePassword')}
        disabled={change.isPending}
      >
        <ProblemAlert error={change.error} shownFields={['currentPassword', 'newPassword']} />
        {done && <p role="status">{t('security.passwordChanged')}</p>}
        <TextField
          label={t('security.currentPassword')}
          type="password"
          autoComplete="current-password"
          required
          {...form.bind('currentPassword')}
        />
        <NewPasswordField {...form.bind('newPassword')} />
      </Form>
    </Section>
  );
}

function Sessions() {
  const { t } = useTranslation();
  const f = useFormat();
  const client = useQueryClient();
  const navigate = useNavigate();
  const sessions = useQuery({ queryKey: sessionsKey, queryFn: dashboardApi.accountSessions });
  const [confirmAll, setConfirmAll] = useState(false);
  const refresh = () => void client.invalidateQueries({ queryKey: sessionsKey });
  const signedOut = () => {
    forgetSession(client);
    void navigate('/sign-in');
  };
  const endOne = useAction(
    (v: { id: string; current: boolean }, key: string) => dashboardApi.endSession(v.id, key),
    (_r, v) => (v.current ? signedOut() : refresh()),
  );
  const endOthers = useAction((_: void, key: string) => dashboardApi.endSessions(true, key), refresh);
  const endAll = useAction((_: void, key: string) => dashboardApi.endSessions(false, key), signedOut);

  return (
    <Section title={t('security.sessions')}>
      <p>{t('security.sessionsIntro')}</p>
      <ProblemAlert error={sessions.error ?? endOne.error ?? endOthers.error} />
      <Table
        caption={t('security.sessionsCaption')}
        busy={sessions.isPending}
        headers={[
          t('security.device'),
          t('security.mode'),
          t('security.signedIn'),
          t('security.lastSeen'),
          t('common.actions'),
        ]}
      >
        {(sessions.data?.data ?? []).map((s) => (
          <tr key={s.id}>
            <th scope="row" title={s.userAgent}>
              {s.device}
              {s.current && <> ({t('security.thisSession')})</>}
            </th>
            <td>{s.mode === 'live' ? t('security.live') : t('security.test')}</td>
            <td>{f.dateTime(s.createdAt)}</td>
            <td>{f.dateTime(s.lastSeenAt)}</td>
            <td>
              <button
                type="button"
                disabled={endOne.isPending}
                onClick={() => endOne.run({ id: s.id, current: s.current })}
              >
                {t('security.signOutSession')}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <div className="actions">
        <button type="button" disabled={endOthers.isPending} onClick={() => endOthers.run()}>
          {t('security.signOutOthers')}
        </button>
        <button type="button" className="button-danger" onClick={() => setConfirmAll(true)}>
          {t('security.signOutEverywhere')}
        </button>
      </div>
      {endOthers.data && <p role="status">{t('security.othersEnded', { count: endOthers.data.ended })}</p>}
      <ConfirmModal
        open={confirmAll}
        title={t('security.signOutEverywhereTitle')}
        confirmLabel={t('security.signOutEverywhere')}
        danger
        action={endAll}
        onConfirm={() => endAll.run()}
        onClose={() => setConfirmAll(false)}
      >
        <p>{t('security.signOutEverywhereConfirm')}</p>
      </ConfirmModal>
    </Section>
  );
}

/** The member's own account: two-step verification, password, sessions. */
export function Security() {
  const { t } = useTranslation();
  const session = useSession();
  return (
    <>
      <h1>{t('security.title')}</h1>
      <TwoStep />
      {/* Until the team's required TOTP is set up, nothing else is open on the server either. */}
      {!session.totpSetupRequired && (
        <>
          <PasswordChange />
          <Sessions />
        </>
      )}
    </>
  );
}
