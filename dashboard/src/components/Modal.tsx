// Dialogs are the browser's own modal <dialog>: focus moves in, the rest of the page is inert,
// Escape closes, focus returns to the opener. Radix and React Aria inject <style> elements at run
// time, which the dashboard's CSP (style-src 'self') refuses (docs/decisions/dashboard/native-dialogs.md).
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ProblemAlert } from './ProblemAlert';

export function Modal(props: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { t } = useTranslation();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className="modal" onClose={props.onClose}>
      {props.open && (
        <>
          <div className="modal-head">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" className="button-quiet" onClick={props.onClose}>
              {t('common.close')}
            </button>
          </div>
          {props.children}
        </>
      )}
    </dialog>
  );
}

/** What a dialog shows of the action it runs: busy while it runs, its problem if it fails. */
export interface ActionState {
  isPending: boolean;
  error: unknown;
}

/** A yes/no question before an action that cannot be undone; the action's problem shows under it. */
export function ConfirmModal(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  action: ActionState;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal open={props.open} onClose={props.onClose} title={props.title}>
      {props.children}
      <ProblemAlert error={props.action.error} />
      <div className="actions">
        <button type="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className={props.danger ? 'button-danger' : 'button-primary'}
          disabled={props.action.isPending}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}

/** A secret the server shows once (a new key pair, a signing secret): open while there is one. */
export function SecretModal<T>(props: {
  secret: T | null | undefined;
  title: string;
  warning: string;
  onClose: () => void;
  children: (secret: T) => ReactNode;
}) {
  const { secret } = props;
  return (
    <Modal open={secret != null} onClose={props.onClose} title={props.title}>
      {secret != null && (
        <>
          <p className="alert alert-warn">{props.warning}</p>
          {props.children(secret)}
        </>
      )}
    </Modal>
  );
}
