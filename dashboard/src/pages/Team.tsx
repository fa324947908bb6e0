import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type Role } from '../api/dashboard';
import { fieldErrors, apiBase } from '../api/http';
import { useAction, useCursorPages } from '../actions';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { ConfirmModal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useCan, useSession } from '../session';

const allRoles: Role[] = ['owner', 'admin', 'developer', 'support', 'viewer'];

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
  // An admin may neither change an owner nor make one (docs/dashboard.md, Roles).
  const assignable = session.role === 'owner' ? allRoles : allRoles.filter((r) => r !== 'owner');
  const editable = (role: Role, id: string) =>
    id !== session.member.id && (session.role === 'owner' || role !== 'owner');

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">{t('team.members')}</h2>
      <ProblemAlert error={members.error ?? setRole.error} />
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>{t('team.membersCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fields.name')}</th>
              <th scope="col">{t('fields.email')}</th>
              <th scope="col">{t('team.role')}</th>
              <th scope="col">{t('team.totp')}</th>
              <th scope="col">{t('team.lastSignIn')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
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
                        <option key={r} value={r}>
                          {t(`roles.${r}`)}
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
          </tbody>
        </table>
      </div>
      <ConfirmModal
        open={removing !== null}
        title={t('team.removeTitle')}
        confirmLabel={t('team.remove')}
        danger
        busy={remove.isPending}
        onConfirm={() => removing && remove.run(removing.id)}
        onClose={() => setRemoving(null)}
      >
        <p>{t('team.removeConfirm', { name: removing?.name ?? '' })}</p>
        <ProblemAlert error={remove.error} />
      </ConfirmModal>
    </section>
  );
}

function Invitations() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const invitations = useQuery({ queryKey: ['invitations'], queryFn: dashboardApi.invitations });
  const refresh = () => void client.invalidateQueries({ queryKey: ['invitations'] });
  const invite = useAction(dashboardApi.invite, () => {
    setEmail('');
    refresh();
  });
  const revoke = useAction(dashboardApi.revokeInvitation, refresh);
  // The server lists every invitation of the team; only pending ones can be used or revoked.
  const pending = (invitations.data?.data ?? []).filter((i) => i.state === 'pending');
  const errors = fieldErrors(invite.error);
  const assignable = session.role === 'owner' ? allRoles : allRoles.filter((r) => r !== 'owner');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.run({ email, role });
  };

  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">{t('team.invitations')}</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <Field label={t('fields.email')} error={errors.email}>
          {(p) => (
            <input {...p} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </Field>
        <Field label={t('team.role')} error={errors.role}>
          {(p) => (
            <select {...p} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {assignable.map((r) => (
                <option key={r} value={r}>
                  {t(`roles.${r}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="actions">
          <button type="submit" className="button-primary" disabled={!email || invite.isPending}>
            {t('team.invite')}
          </button>
        </div>
      </form>
      <ProblemAlert error={invite.error} shownFields={['email', 'role']} />
      {invite.data && (
        <div role="status" className="alert alert-ok">
          <p>{t('team.invited', { email: invite.data.email })}</p>
          <p>
            <code className="secret">{invite.data.link}</code>{' '}
            <CopyButton value={invite.data.link} label={t('team.copyLink')} />
          </p>
        </div>
      )}
      <ProblemAlert error={invitations.error ?? revoke.error} />
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>{t('team.invitationsCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fields.email')}</th>
              <th scope="col">{t('team.role')}</th>
              <th scope="col">{t('team.expires')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
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
            {pending.length === 0 && (
              <tr>
                <td colSpan={4} className="empty">
                  {t('team.noInvitations')}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function AuditLog() {
  const { t } = useTranslation();
  const f = useFormat();
  const pages = useCursorPages();
  // The server pages the log newest first; it has no filters (its CSV export holds everything).
  const audit = useQuery({
    queryKey: ['audit', pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () => dashboardApi.audit({ cursor: pages.cursor, limit: 50 }),
  });

  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">{t('audit.title')}</h2>
      <div className="actions">
        <a className="button" href={`${apiBase}/audit/export`} download>
          {t('audit.export')}
        </a>
      </div>
      <ProblemAlert error={audit.error} />
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>{t('audit.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fields.date')}</th>
              <th scope="col">{t('audit.actor')}</th>
              <th scope="col">{t('audit.action')}</th>
              <th scope="col">{t('audit.target')}</th>
              <th scope="col">{t('audit.mode')}</th>
              <th scope="col">{t('audit.from')}</th>
            </tr>
          </thead>
          <tbody>
            {(audit.data?.data ?? []).map((a, i) => (
              <tr key={`${a.at}-${i}`}>
                <td>{f.dateTime(a.at)}</td>
                <td>{a.email ?? t('team.operator')}</td>
                <td>
                  <code>{a.action}</code>
                </td>
                <td>{a.target || '—'}</td>
                <td>{a.mode ? t(`modes.${a.mode}`) : '—'}</td>
                <td>
                  {a.ip || '—'} <small>{a.userAgent}</small>
                </td>
              </tr>
            ))}
            {audit.data?.data.length === 0 && (
              <tr>
                <td colSpan={6} className="empty">
                  {t('common.empty')}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        label={t('audit.pages')}
        page={pages.page}
        hasPrevious={pages.hasPrevious}
        nextCursor={audit.data?.nextCursor}
        onPrevious={pages.previous}
        onNext={pages.next}
      />
    </section>
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
      {can('audit') && <AuditLog />}
    </>
  );
}
