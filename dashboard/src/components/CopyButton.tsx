import { useState } from 'react';
import { useTranslation } from 'react-i18next';

export function CopyButton(props: { value: string; label: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(props.value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {props.label}
      </button>
      <span role="status" className="copied">
        {copied ? t('common.copied') : ''}
      </span>
    </>
  );
}

/** A value to copy, shown as code (`secret`: in the style of a secret, shown once). */
export function CopyableCode(props: { value: string; label: string; secret?: boolean }) {
  return (
    <>
      <code className={props.secret ? 'secret' : undefined}>{props.value}</code>{' '}
      <CopyButton value={props.value} label={props.label} />
    </>
  );
}
