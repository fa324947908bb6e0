import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet } from 'react-router';
import { useState } from 'react';
import { dashboardApi } from '../api/dashboard';
import { useAction } from '../actions';
import { CopyableCode } from '../components/CopyButton';
import { ConfirmModal, SecretModal } from '../components/Modal';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { useFormat } from '../format';
import { useCan, useSession } from '../session';

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

  // A live key refunds and pays out: owners and admins make or revoke one, with a fresh
  // authenticator code (docs/decisions/dashboard/live-money-second-factor.md).
  const can = useCan();
  const live = session.mode === 'live';
  const mayManage = !live || can('live_keys');
  const [code, setCode] = useState('');
  const stepUp = async (idempotencyKey: string) => {
    if (!live || !code.trim()) return;
    const given = code.trim();
    setCode('');
    await dashboardApi.stepUp(given, `${idempotencyKey}-step-up`);
  };
  const create = useAction(
    async (_replaces: string | null, idempotencyKey: string) => {
      await stepUp(idempotencyKey);
      return dashboardApi.createKey(session.mode, idempotencyKey);
    },
    (created, replaces) => {
      setSecret({ ...created, replaces });
      refresh();
    },
  );
  const revoke = useAction(
    async (apiKey: string, idempotencyKey: string) => {
      await stepUp(idempotencyKey);
      return dashboardApi.revokeKey(apiKey, idempotencyKey);
    },
    () => {
      setRevoking(null);
      setSecret(null);
      refresh();
    },
  );

  return (
    <Section title={t('keys.title', { mode: t(`modes.${session.mode}`) })}>
      <p>{t('keys.intro')}</p>
      {live && !mayManage && <p>{t('keys.liveOwnersOnly')}</p>}
      {live && mayManage && (
        <p>
          <label>
            {t('keys.stepUpCode')}{' '}
            <input
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </label>{' '}
          {t('keys.stepUpHint')}
        </p>
      )}
      <div className="actions" hidden={!mayManage}>
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
      <Table
        caption={t('keys.caption')}
        headers={[
          t('keys.apiKey'),
          t('fields.createdAt'),
          t('keys.lastUsed'),
          t('fields.status'),
          t('common.actions'),
        ]}
        empty={modeKeys.length === 0 && t('common.empty')}
      >
        {modeKeys.map((k) => (
          <tr key={k.apiKey}>
            <th scope="row">
              <code>{k.apiKey}</code>
            </th>
            <td>{f.dateTime(k.createdAt)}</td>
            <td>{f.dateTime(k.lastUsedAt)}</td>
            <td>{k.revokedAt ? t('keys.revokedAt', { at: f.dateTime(k.revokedAt) }) : t('keys.active')}</td>
            <td>
              {!k.revokedAt && mayManage && (
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
      </Table>
      <SecretModal
        secret={secret}
        title={t('keys.secretTitle')}
        warning={t('keys.secretOnce')}
        onClose={() => setSecret(null)}
      >
        {(pair) => (
          <>
            <dl className="summary">
              <dt>{t('keys.apiKey')}</dt>
              <dd>
                <CopyableCode value={pair.apiKey} label={t('keys.copyKey')} />
              </dd>
              <dt>{t('keys.apiClient')}</dt>
              <dd>
                <CopyableCode value={pair.apiClient} label={t('keys.copySecret')} secret />
              </dd>
            </dl>
            {pair.replaces && (
              <p>
                {t('keys.rotated', { old: pair.replaces })}{' '}
                <button type="button" className="button-danger" onClick={() => setRevoking(pair.replaces)}>
                  {t('keys.revokeOld')}
                </button>
              </p>
            )}
          </>
        )}
      </SecretModal>
      <ConfirmModal
        open={revoking !== null}
        title={t('keys.revokeTitle')}
        confirmLabel={t('keys.revoke')}
        danger
        action={revoke}
        onConfirm={() => revoking && revoke.run(revoking)}
        onClose={() => setRevoking(null)}
      >
        <p>{t('keys.revokeConfirm', { key: revoking ?? '' })}</p>
      </ConfirmModal>
    </Section>
  );
}
