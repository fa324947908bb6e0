import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type AlertSettings, type Role, type TeamLogo } from '../api/dashboard';
import { apiBase } from '../api/http';
import { useAction, useCursorQuery } from '../actions';
import { CopyableCode } from '../components/CopyButton';
import { Check, Field, SelectField, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ConfirmModal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useCan, useSession } from '../session';
import { auditActionText } from '../audit-actions';

const allRoles: Role[] = ['owner', 'admin', 'developer', 'support', 'viewer'];

/** The roles this member may give: an admin may neither change an owner nor make one (docs/dashboard.md, Roles). */
function useAssignableRoles() {
  const { t } = useTranslation();
  const session = useSession();
  const roles = session.role === 'owner' ? allRoles : allRoles.filter((r) => r !== 'owner');
  return roles.map((r) => ({ value: r, label: t(`roles.${r}`) }));
}

function Members() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const client = useQueryClient();
  const members = useQuery({ queryKey: ['members'], queryFn: dashboardApi.members });
  const [removing, setRemoving] = useState<{ id: string; name: string } | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: ['members'] });
  const setRole = useAction(
    (v: { id: string; role: Role }, key: string) => dashboardApi.setRole(v.id, v.role, key),
    refresh,
  );
  const remove = useAction(dashboardApi.removeMember, () => {
    setRemoving(null);
    refresh();
  });
  const assignable = useAssignableRoles();
  const editable = (role: Role, id: string) =>
    id !== session.member.id && (session.role === 'owner' || role !== 'owner');

  return (
    <Section title={t('team.members')}>
      <ProblemAlert error={members.error ?? setRole.error} />
      <Table
        caption={t('team.membersCaption')}
        headers={[
          t('fields.name'),
          t('fields.email'),
          t('team.role'),
          t('team.totp'),
          t('team.lastSignIn'),
          t('common.actions'),
        ]}
      >
        {(members.data?.data ?? []).map((m) => (
          <tr key={m.id}>
            <th scope="row">{m.name}</th>
            <td>{m.email}</td>
            <td>
              {editable(m.role, m.id) ? (
                <select
                  aria-label={t('team.roleOf', { name: m.name })}
                  value={m.role}
                  disabled={setRole.isPending}
                  onChange={(e) => setRole.run({ id: m.id, role: e.target.value as Role })}
                >
                  {assignable.map((r) => (
                    <option key={r.value} value={r.value}>
                      {r.label}
                    </option>
                  ))}
                </select>
              ) : (
                t(`roles.${m.role}`)
              )}
            </td>
            <td>{m.totpEnabled ? t('common.yes') : t('common.no')}</td>
            <td>{f.dateTime(m.createdAt)}</td>
            <td>
              {editable(m.role, m.id) && (
                <button
                  type="button"
                  className="button-danger"
                  onClick={() => setRemoving({ id: m.id, name: m.name })}
                >
                  {t('team.remove')}
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <ConfirmModal
        open={removing !== null}
        title={t('team.removeTitle')}
        confirmLabel={t('team.remove')}
        danger
        action={remove}
        onConfirm={() => removing && remove.run(removing.id)}
        onClose={() => setRemoving(null)}
      >
        <p>{t('team.removeConfirm', { name: removing?.name ?? '' })}</p>
      </ConfirmModal>
    </Section>
  );
}

function Invitations() {
  const { t } = useTranslation();
  const f = useFormat();
  const client = useQueryClient();
  const invitations = useQuery({ queryKey: ['invitations'], queryFn: dashboardApi.invitations });
  const refresh = () => void client.invalidateQueries({ queryKey: ['invitations'] });
  const invite = useAction(dashboardApi.invite, () => {
    form.set('email', '');
    refresh();
  });
  const form = useFields({ email: '', role: 'viewer' as Role }, invite.error);
  const revoke = useAction(dashboardApi.revokeInvitation, refresh);
  // The server lists every invitation of the team; only pending ones can be used or revoked.
  const pending = (invitations.data?.data ?? []).filter((i) => i.state === 'pending');
  const assignable = useAssignableRoles();

  return (
    <Section title={t('team.invitations')}>
      <Form
        onSubmit={() => invite.run(form.values)}
        className="form-grid"
        submit={t('team.invite')}
        disabled={!form.values.email || invite.isPending}
      >
        <TextField label={t('fields.email')} type="email" required {...form.bind('email')} />
        <SelectField label={t('team.role')} choices={assignable} {...form.bind('role')} />
      </Form>
      <ProblemAlert error={invite.error} shownFields={['email', 'role']} />
      {invite.data && (
        <div role="status" className="alert alert-ok">
          <p>{t('team.invited', { email: invite.data.email })}</p>
          <p>
            <CopyableCode value={invite.data.link} label={t('team.copyLink')} secret />
          </p>
        </div>
      )}
      <ProblemAlert error={invitations.error ?? revoke.error} />
      <Table
        caption={t('team.invitationsCaption')}
        headers={[t('fields.email'), t('team.role'), t('team.expires'), t('common.actions')]}
        empty={pending.length === 0 && t('team.noInvitations')}
      >
        {pending.map((i) => (
          <tr key={i.id}>
            <th scope="row">{i.email}</th>
            <td>{t(`roles.${i.role}`)}</td>
            <td>{f.dateTime(i.expiresAt)}</td>
            <td>
              <button type="button" onClick={() => revoke.run(i.id)} disabled={revoke.isPending}>
                {t('team.revokeInvitation')}
              </button>
            </td>
          </tr>
        ))}
      </Table>
    </Section>
  );
}

/** A route's own entry (`auth.sign-in`, `account.password-changed`) reads as its kind. */
const ownAction = (action: string) =>
  /^(auth|account|team)\.[a-z-]+$/.test(action) ? { kind: action, params: {} } : null;

/** A path that may wrap after each slash, never inside a word (an entry with no described action). */
function BreakablePath(props: { path: string }) {
  const parts = props.path.split('/');
  return (
    <code className="audit-path">
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && (
            <>
              /<wbr />
            </>
          )}
          {part}
        </Fragment>
      ))}
    </code>
  );
}

function AuditLog() {
  const { t } = useTranslation();
  const f = useFormat();
  // The server pages the log newest first; it has no filters (its CSV export holds everything).
  const { query: audit, pages } = useCursorQuery(['audit'], (cursor) =>
    dashboardApi.audit({ cursor, limit: 50 }),
  );

  return (
    <Section title={t('audit.title')}>
      <div className="actions">
        <a className="button" href={`${apiBase}/audit/export`} download>
          {t('audit.export')}
        </a>
      </div>
      <ProblemAlert error={audit.error} />
      <Table
        className="audit-table"
        caption={t('audit.caption')}
        headers={[
          t('fields.date'),
          t('audit.actor'),
          t('audit.outcome'),
          t('audit.action'),
          t('audit.target'),
          t('audit.mode'),
          t('audit.from'),
        ]}
        empty={audit.data?.data.length === 0 && t('common.empty')}
      >
        {(audit.data?.data ?? []).map((a, i) => (
          <tr key={`${a.at}-${i}`}>
            <td className="audit-when">{f.dateTime(a.at)}</td>
            <td>{a.email ?? t('team.operator')}</td>
            <td className={`audit-outcome audit-${a.outcome}`}>
              {t(`audit.outcomes.${a.outcome}`)} <small>{a.status}</small>
              {a.problemCode && (
                <>
                  {' '}
                  <code>{a.problemCode}</code>
                </>
              )}
            </td>
            <td className="audit-action">
              {auditActionText(a.described ?? ownAction(a.action), t, f.language) ?? (
                <BreakablePath path={a.action} />
              )}
            </td>
            <td>{a.target ? <BreakablePath path={a.target} /> : '—'}</td>
            <td>{a.mode ? t(`modes.${a.mode}`) : '—'}</td>
            <td className="audit-from">
              {a.ip || '—'} <small>{a.userAgent}</small>
            </td>
          </tr>
        ))}
      </Table>
      <Pager label={t('audit.pages')} pages={pages} nextCursor={audit.data?.nextCursor} />
    </Section>
  );
}

/** The owner's settings: TOTP for every member (only an owner with TOTP may change it). */
function Settings() {
  const { t } = useTranslation();
  const session = useSession();
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['team-settings'], queryFn: dashboardApi.teamSettings });
  const save = useAction(dashboardApi.setTeamSettings, (answer) =>
    client.setQueryData(['team-settings'], answer),
  );
  const owner = session.role === 'owner';
  return (
    <Section title={t('team.settings')}>
      <ProblemAlert error={settings.error ?? save.error} />
      {settings.data && (
        <>
          <Check
            checked={settings.data.requireTotp}
            disabled={!owner || save.isPending}
            onChange={(requireTotp) => save.run({ requireTotp })}
          >
            {t('team.requireTotp')}
          </Check>
          <p className="hint">{t('team.requireTotpHint')}</p>
        </>
      )}
      {save.isSuccess && <p role="status">{t('team.saved')}</p>}
    </Section>
  );
}

/** The logo customers see on the payment links' pages (PNG, JPEG or WebP, at most 100 kB). */
function Logo() {
  const { t } = useTranslation();
  const f = useFormat();
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const logo = useQuery({ queryKey: ['team-logo'], queryFn: dashboardApi.teamLogo });
  const saved = (answer: TeamLogo) => {
    client.setQueryData(['team-logo'], answer);
    setFile(null);
  };
  const upload = useAction(dashboardApi.setTeamLogo, saved);
  const remove = useAction((_: void, key: string) => dashboardApi.removeTeamLogo(key), saved);
  const current = logo.data?.logo;
  return (
    <Section title={t('team.logo')}>
      <p className="hint">{t('team.logoHint')}</p>
      <ProblemAlert error={logo.error ?? upload.error ?? remove.error} />
      {current ? (
        <p>
          <img
            className="merchant-logo"
            src={`${apiBase}/team/logo/image?v=${current.version}`}
            alt={t('team.logoCurrent')}
            data-testid="team-logo"
          />{' '}
          <small>
            {t('team.logoSize', { size: f.number(Math.ceil(current.bytes / 1000)) })} ·{' '}
            {f.dateTime(current.updatedAt)}
          </small>
        </p>
      ) : (
        logo.data && <p>{t('team.logoNone')}</p>
      )}
      <Form
        onSubmit={() => file && upload.run(file)}
        className="form-row"
        submit={t('team.logoUpload')}
        quiet
        disabled={!file || upload.isPending}
      >
        <Field label={t('team.logoFile')}>
          {(p) => (
            <input
              {...p}
              type="file"
              accept="image/png,image/jpeg,image/webp"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          )}
        </Field>
      </Form>
      {current && (
        <div className="actions">
          <button type="button" disabled={remove.isPending} onClick={() => remove.run()}>
            {t('team.logoRemove')}
          </button>
        </div>
      )}
      {(upload.isSuccess || remove.isSuccess) && <p role="status">{t('team.saved')}</p>}
    </Section>
  );
}

/** A threshold as typed: empty is none; anything but whole digits goes as typed, for the server to say why. */
const thresholdOf = (typed: string): number | string | null =>
  typed.trim() === '' ? null : /^\d+$/.test(typed.trim()) ? Number(typed.trim()) : typed;

/**
 * The alerts of the session's mode (docs/dashboard.md, Alerts): a balance below which a main account
 * raises one, and whether they are mailed to the owners and admins.
 */
function AlertSettingsSection() {
  const { t } = useTranslation();
  const session = useSession();
  const settings = useQuery({
    queryKey: ['alert-settings', session.mode],
    queryFn: dashboardApi.alertSettings,
  });
  return (
    <Section title={t('team.alerts')} anchor="alerts">
      <p className="hint">{t(`team.alertsHint.${session.mode}`)}</p>
      <ProblemAlert error={settings.error} />
      {settings.data && <AlertSettingsForm initial={settings.data} />}
    </Section>
  );
}

function AlertSettingsForm(props: { initial: AlertSettings }) {
  const { t } = useTranslation();
  const session = useSession();
  const client = useQueryClient();
  const [email, setEmail] = useState(props.initial.email);
  const save = useAction(dashboardApi.setAlertSettings, (answer) => {
    client.setQueryData(['alert-settings', session.mode], answer);
    void client.invalidateQueries({ queryKey: ['alerts', session.mode] });
  });
  const fields = useFields(
    () => ({
      XOF: props.initial.balanceBelow.XOF?.toString() ?? '',
      XAF: props.initial.balanceBelow.XAF?.toString() ?? '',
    }),
    save.error,
  );
  const submit = () =>
    save.run({
      // Sent as typed when not a whole number: the server names the field and says why, in the page's language.
      balanceBelow: {
        XOF: thresholdOf(fields.values.XOF) as number | null,
        XAF: thresholdOf(fields.values.XAF) as number | null,
      },
      email,
    });
  return (
    <Form onSubmit={submit} submit={t('team.alertsSave')} quiet disabled={save.isPending}>
      {(['XOF', 'XAF'] as const).map((currency) => (
        <TextField
          key={currency}
          label={t('team.alertBelow', { currency })}
          hint={t('team.alertBelowHint', { currency })}
          inputMode="numeric"
          {...fields.bind(currency)}
        />
      ))}
      <Check checked={email} onChange={setEmail}>
        {t('team.alertsEmail')}
      </Check>
      {save.error != null && Object.keys(fields.errors).length === 0 && <ProblemAlert error={save.error} />}
      {save.isSuccess && <p role="status">{t('team.saved')}</p>}
    </Form>
  );
}

export function Team() {
  const { t } = useTranslation();
  const can = useCan();
  return (
    <>
      <h1>{t('team.title')}</h1>
      {can('team') && <Members />}
      {can('team') && <Invitations />}
      {can('team') && <Settings />}
      {can('team') && <AlertSettingsSection />}
      {can('team') && <Logo />}
      {can('audit') && <AuditLog />}
    </>
  );
}
