// Dialogs are the browser's own modal <dialog>: focus moves in, the rest of the page is inert,
// Escape closes, focus returns to the opener. Radix and React Aria inject <style> elements at run
// time, which the dashboard's CSP (style-src 'self') refuses (docs/decisions/dashboard/native-dialogs.md).
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

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

/** A yes/no question before an action that cannot be undone. */
export function ConfirmModal(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal open={props.open} onClose={props.onClose} title={props.title}>
      {props.children}
      <div className="actions">
        <button type="button" onClick={props.onClose}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className={props.danger ? 'button-danger' : 'button-primary'}
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          {props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
