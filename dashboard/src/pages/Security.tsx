import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { TotpField } from '../components/AccountFields';
import { Form } from '../components/Form';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
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

  return (
    <>
      <h1>{t('security.title')}</h1>
      <Section title={t('security.totp')}>
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
              <Form
                onSubmit={() => enable.run(code)}
                submit={t('security.enable')}
                disabled={enable.isPending}
              >
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
    </>
  );
}
