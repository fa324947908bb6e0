import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { Field } from '../components/Field';
import { ProblemAlert } from '../components/ProblemAlert';
import { adoptSession, useSession } from '../session';

/** The second factor: the server makes a secret (QR code and text), the member proves it with a code. */
export function Security() {
  const { t } = useTranslation();
  const session = useSession();
  const client = useQueryClient();
  const [code, setCode] = useState('');
  const setup = useAction((_: void, key: string) => dashboardApi.totpSetup(key));
  // The answer is `{ totpEnabled: true }`: the cached session says so too.
  const enable = useAction(dashboardApi.totpEnable, () =>
    adoptSession(client, { ...session, totpEnabled: true }),
  );
  const errors = fieldErrors(enable.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    enable.run(code);
  };

  return (
    <>
      <h1>{t('security.title')}</h1>
      <section aria-labelledby="totp-heading">
        <h2 id="totp-heading">{t('security.totp')}</h2>
        {session.totpEnabled ? (
          <p role="status">{t('security.enabled')}</p>
        ) : (
          <>
            <p>{t('security.intro')}</p>
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
              <form onSubmit={submit} noValidate>
                <figure className="qr">
                  {/* The server draws the QR code as an SVG data URL (the CSP allows img-src data:). */}
                  <img src={setup.data.qrCode} alt={t('security.qrLabel')} width={200} height={200} />
                  <figcaption>
                    {t('security.secretText')} <code className="secret">{setup.data.secret}</code>
                  </figcaption>
                </figure>
                <ProblemAlert error={enable.error} shownFields={['code']} />
                <Field label={t('fields.totp')} error={errors.code}>
                  {(p) => (
                    <input
                      {...p}
                      inputMode="numeric"
                      autoComplete="one-time-code"
                      maxLength={8}
                      required
                      value={code}
                      onChange={(e) => setCode(e.target.value.trim())}
                    />
                  )}
                </Field>
                <div className="actions">
                  <button type="submit" className="button-primary" disabled={enable.isPending}>
                    {t('security.enable')}
                  </button>
                </div>
              </form>
            )}
          </>
        )}
      </section>
    </>
  );
}
