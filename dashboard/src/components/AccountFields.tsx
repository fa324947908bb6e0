// The fields of signing in, joining and resetting a password, alike on every screen that asks them.
import type { Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { TextField, type Bound } from './Field';

/** The member's email, which password managers take as the user name. */
export function EmailField(props: Bound) {
  const { t } = useTranslation();
  return <TextField {...props} label={t('fields.email')} type="email" autoComplete="username" required />;
}

/** A password being chosen, with the rules it must follow. */
export function NewPasswordField(props: Bound) {
  const { t } = useTranslation();
  return (
    <TextField
      {...props}
      label={t('fields.newPassword')}
      hint={t('fields.passwordHint')}
      type="password"
      autoComplete="new-password"
      required
    />
  );
}

/** The authenticator app's code (digits; spaces typed around it are dropped). */
export function TotpField(props: Bound & { hint?: string; pattern?: string; ref?: Ref<HTMLInputElement> }) {
  const { t } = useTranslation();
  const { onChange, ...rest } = props;
  return (
    <TextField
      {...rest}
      label={t('fields.totp')}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={8}
      required
      onChange={(v) => onChange(v.trim())}
    />
  );
}
