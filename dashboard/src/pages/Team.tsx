import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type Role } from '../api/dashboard';
import { fieldErrors, withQuery, apiBase } from '../api/http';
import { useAction, useCursorPages } from '../actions';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { ConfirmModal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useCan, useSession } from '../session';
import { dayStart } from './transactions-model';

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
      <div className="table-wrap">
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
                <td>{f.dateTime(m.lastSignInAt)}</td>
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
            <code className="secret">{invite.data.url}</code>{' '}
            <CopyButton value={invite.data.url} label={t('team.copyLink')} />
          </p>
        </div>
      )}
      <ProblemAlert error={invitations.error ?? revoke.error} />
      <div className="table-wrap">
        <table>
          <caption>{t('team.invitationsCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('fields.email')}</th>
              <th scope="col">{t('team.role')}</th>
              <th scope="col">{t('team.invitedBy')}</th>
              <th scope="col">{t('team.expires')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {(invitations.data?.data ?? []).map((i) => (
              <tr key={i.id}>
                <th scope="row">{i.email}</th>
                <td>{t(`roles.${i.role}`)}</td>
                <td>{i.invitedBy?.name ?? t('team.operator')}</td>
                <td>{f.dateTime(i.expiresAt)}</td>
                <td>
                  <button type="button" onClick={() => revoke.run(i.id)} disabled={revoke.isPending}>
                    {t('team.revokeInvitation')}
                  </button>
                </td>
              </tr>
            ))}
            {invitations.data?.data.length === 0 && (
              <tr>
                <td colSpan={5} className="empty">
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
  const [draft, setDraft] = useState({ from: '', to: '', action: '' });
  const [filters, setFilters] = useState(draft);
  const query = {
    from: dayStart(filters.from),
    to: dayStart(filters.to, 1),
    action: filters.action || undefined,
  };
  const audit = useQuery({
    queryKey: ['audit', filters, pages.cursor],
    placeholderData: keepPreviousData,
    queryFn: () => dashboardApi.audit({ ...query, cursor: pages.cursor, limit: 50 }),
  });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    pages.reset();
  };

  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">{t('audit.title')}</h2>
      <form onSubmit={apply} className="filter-grid">
        <Field label={t('fields.from')}>
          {(p) => (
            <input
              {...p}
              type="date"
              value={draft.from}
              onChange={(e) => setDraft({ ...draft, from: e.target.value })}
            />
          )}
        </Field>
        <Field label={t('fields.to')}>
          {(p) => (
            <input
              {...p}
              type="date"
              value={draft.to}
              onChange={(e) => setDraft({ ...draft, to: e.target.value })}
            />
          )}
        </Field>
        <Field label={t('audit.action')}>
          {(p) => (
            <input
              {...p}
              value={draft.action}
              onChange={(e) => setDraft({ ...draft, action: e.target.value })}
            />
          )}
        </Field>
        <div className="actions">
          <button type="submit" className="button-primary">
            {t('common.apply')}
          </button>
          <a className="button" href={withQuery(`${apiBase}/audit/export`, query)} download>
            {t('audit.export')}
          </a>
        </div>
      </form>
      <ProblemAlert error={audit.error} />
      <div className="table-wrap">
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
            {(audit.data?.data ?? []).map((a) => (
              <tr key={a.id}>
                <td>{f.dateTime(a.at)}</td>
                <td>{a.actor?.email ?? t('team.operator')}</td>
                <td>
                  <code>{a.action}</code>
                </td>
                <td>{a.target ?? '—'}</td>
                <td>{a.mode ? t(`modes.${a.mode}`) : '—'}</td>
                <td>
                  {a.ip ?? '—'} <small>{a.userAgent ?? ''}</small>
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
