import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet } from 'react-router';
import { useState } from 'react';
import { dashboardApi } from '../api/dashboard';
import { useAction } from '../actions';
import { CopyButton } from '../components/CopyButton';
import { ConfirmModal, Modal } from '../components/Modal';
import { ProblemAlert } from '../components/ProblemAlert';
import { useFormat } from '../format';
import { useSession } from '../session';

export function Developers() {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t('developers.title')}</h1>
      <nav aria-label={t('developers.sections')} className="tabs">
        <NavLink to="/developers" end>
          {t('developers.keys')}
        </NavLink>
        <NavLink to="/developers/webhooks">{t('developers.webhooks')}</NavLink>
        <NavLink to="/developers/requests">{t('developers.requests')}</NavLink>
      </nav>
      <Outlet />
    </>
  );
}

export function Keys() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['keys', session.mode], queryFn: dashboardApi.keys });
  const [secret, setSecret] = useState<{ apiKey: string; apiClient: string; replaces: string | null } | null>(
    null,
  );
  // The server lists both modes' keys: this page shows the session's mode.
  const modeKeys = (keys.data?.data ?? []).filter((k) => k.mode === session.mode);
  const [revoking, setRevoking] = useState<string | null>(null);
  const refresh = () => void client.invalidateQueries({ queryKey: ['keys'] });

  const create = useAction(
    (_replaces: string | null, idempotencyKey: string) =>
      dashboardApi.createKey(session.mode, idempotencyKey),
    (created, replaces) => {
      setSecret({ ...created, replaces });
      refresh();
    },
  );
  const revoke = useAction(dashboardApi.revokeKey, () => {
    setRevoking(null);
    setSecret(null);
    refresh();
  });

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">{t('keys.title', { mode: t(`modes.${session.mode}`) })}</h2>
      <p>{t('keys.intro')}</p>
      <div className="actions">
        <button
          type="button"
          className="button-primary"
          onClick={() => create.run(null)}
          disabled={create.isPending}
        >
          {t('keys.create')}
        </button>
      </div>
      <ProblemAlert error={create.error ?? keys.error} />
      <div className="table-wrap" tabIndex={0}>
        <table>
          <caption>{t('keys.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('keys.apiKey')}</th>
              <th scope="col">{t('fields.createdAt')}</th>
              <th scope="col">{t('keys.lastUsed')}</th>
              <th scope="col">{t('fields.status')}</th>
              <th scope="col">{t('common.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {modeKeys.map((k) => (
              <tr key={k.apiKey}>
                <th scope="row">
                  <code>{k.apiKey}</code>
                </th>
                <td>{f.dateTime(k.createdAt)}</td>
                <td>{f.dateTime(k.lastUsedAt)}</td>
                <td>
                  {k.revokedAt ? t('keys.revokedAt', { at: f.dateTime(k.revokedAt) }) : t('keys.active')}
                </td>
                <td>
                  {!k.revokedAt && (
                    <>
                      <button type="button" onClick={() => create.run(k.apiKey)} disabled={create.isPending}>
                        {t('keys.rotate')}
                      </button>{' '}
                      <button type="button" className="button-danger" onClick={() => setRevoking(k.apiKey)}>
                        {t('keys.revoke')}
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
            {modeKeys.length === 0 && (
              <tr>
                <td colSpan={5} className="empty">
                  {t('common.empty')}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Modal open={secret !== null} onClose={() => setSecret(null)} title={t('keys.secretTitle')}>
        {secret && (
          <>
            <p className="alert alert-warn">{t('keys.secretOnce')}</p>
            <dl className="summary">
              <dt>{t('keys.apiKey')}</dt>
              <dd>
                <code>{secret.apiKey}</code> <CopyButton value={secret.apiKey} label={t('keys.copyKey')} />
              </dd>
              <dt>{t('keys.apiClient')}</dt>
              <dd>
                <code className="secret">{secret.apiClient}</code>{' '}
                <CopyButton value={secret.apiClient} label={t('keys.copySecret')} />
              </dd>
            </dl>
            {secret.replaces && (
              <p>
                {t('keys.rotated', { old: secret.replaces })}{' '}
                <button type="button" className="button-danger" onClick={() => setRevoking(secret.replaces)}>
                  {t('keys.revokeOld')}
                </button>
              </p>
            )}
          </>
        )}
      </Modal>
      <ConfirmModal
        open={revoking !== null}
        title={t('keys.revokeTitle')}
        confirmLabel={t('keys.revoke')}
        danger
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.run(revoking)}
        onClose={() => setRevoking(null)}
      >
        <p>{t('keys.revokeConfirm', { key: revoking ?? '' })}</p>
        <ProblemAlert error={revoke.error} />
      </ConfirmModal>
    </section>
  );
}
