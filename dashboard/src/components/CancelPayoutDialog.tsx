import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/http';
import { useAction } from '../actions';
import { useFormat } from '../format';
import { ConfirmModal } from './Modal';

export interface HeldPayout {
  reference: string;
  amount: number;
  currency: string;
}

/** Cancels a payout still held (pending), after asking; open while `payout` is set. */
export function CancelPayoutDialog(props: {
  payout: HeldPayout | null;
  onClose: () => void;
  onCancelled: () => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const { payout } = props;
  const cancel = useAction(
    (reference: string, key: string) =>
      unwrap(
        api.POST('/v1/payout/{reference}/cancel', {
          params: { path: { reference }, header: { 'X-Idempotency-Key': key } },
        }),
      ),
    props.onCancelled,
  );
  return (
    <ConfirmModal
      open={payout !== null}
      title={t('payouts.cancelTitle')}
      confirmLabel={t('payouts.cancel')}
      danger
      action={cancel}
      onConfirm={() => payout && cancel.run(payout.reference)}
      onClose={props.onClose}
    >
      {payout && (
        <p>
          {t('payouts.cancelConfirm', {
            reference: payout.reference,
            amount: f.amount(payout.amount, payout.currency),
          })}
        </p>
      )}
    </ConfirmModal>
  );
}
