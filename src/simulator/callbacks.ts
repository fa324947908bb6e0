import type { OperatorCode } from '../domain/operators';
import type { CallbackKind, OperatorCallbackBody } from '../operators/wire';
import { signCallback, signatureHeader } from '../operators/signature';
import type { SimTransaction } from './books';

// The operator's callbacks: once an outcome is reached, a signed POST to the request's callbackUrl
// (or the service's base URL), retried on no answer, a 5xx or a 429. Kept in memory for tests.

export interface CallbackDelivery {
  kind: CallbackKind;
  id: string;
  operator: OperatorCode;
  url: string;
  attempts: number;
  status: number | null;
  delivered: boolean;
}

export interface CallbackSender {
  deliver(tx: SimTransaction): Promise<void>;
  setBaseUrl(url: string | null): void;
  readonly log: CallbackDelivery[];
  close(): void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function callbackSender(opts: {
  secrets: Record<OperatorCode, string>;
  baseUrl: string | null;
  retryDelaysMs: number[];
}): CallbackSender {
  let baseUrl = opts.baseUrl;
  let closed = false;
  const log: CallbackDelivery[] = [];

  async function deliver(tx: SimTransaction): Promise<void> {
    const url = tx.callbackUrl ?? (baseUrl ? `${baseUrl}/operator-callbacks/${tx.operator}` : null);
    if (!url || closed) return;
    const payload: OperatorCallbackBody = {
      kind: tx.kind,
      id: tx.id,
      ...(tx.originalId ? { transactionId: tx.originalId } : {}),
      outcome: tx.outcome,
      operatorReference: tx.operatorReference,
    };
    const body = JSON.stringify(payload);
    const record: CallbackDelivery = {
      kind: tx.kind,
      id: tx.id,
      operator: tx.operator,
      url,
      attempts: 0,
      status: null,
      delivered: false,
    };
    log.push(record);
    for (const wait of opts.retryDelaysMs) {
      if (wait > 0) await sleep(wait);
      if (closed) return;
      record.attempts++;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [signatureHeader]: signCallback(opts.secrets[tx.operator], body),
          },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        record.status = res.status;
        await res.arrayBuffer();
        // 2xx is received; another 4xx will not get better by retrying.
        if (res.status < 500 && res.status !== 429) {
          record.delivered = res.ok;
          return;
        }
      } catch {
        record.status = null;
      }
    }
  }

  return {
    deliver,
    setBaseUrl: (url) => {
      baseUrl = url;
    },
    log,
    close: () => {
      closed = true;
    },
  };
}
