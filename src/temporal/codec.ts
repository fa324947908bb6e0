import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { KeyRing, KeyRingError } from '../security/key-ring';

// The payload codec: every payload the API's client and the worker send to Temporal (workflow and
// activity inputs and results, signals, updates, queries, memos, encoded failure messages) is
// sealed with the newest key of PAYLOAD_CODEC_KEYS, so history holds no personal data in clear.
// Search attributes are not payloads the codec sees: they hold no personal data by design
// (workflows/shared/search-attributes.ts).

/** `metadata.encoding` of a sealed payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** `metadata` key naming the key that sealed the payload (any key of the ring opens it). */
export const KEY_ID_METADATA = 'encryption-key-id';
// Binds each box to its use: a sealed database field cannot be passed off as a payload, or back.
const aad = Buffer.from('momo-payments/temporal-payload/v1');

export class PayloadCodecError extends Error {}

const text = (bytes: Uint8Array | null | undefined): string | undefined =>
  bytes ? Buffer.from(bytes).toString('utf8') : undefined;

export function isEncryptedPayload(payload: Payload): boolean {
  return text(payload.metadata?.encoding) === ENCRYPTED_ENCODING;
}

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly ring: KeyRing) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // The whole payload, metadata included (its encoding and type names), is what gets sealed.
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const box = this.ring.seal(plain, aad);
      return {
        metadata: {
          encoding: Buffer.from(ENCRYPTED_ENCODING),
          [KEY_ID_METADATA]: Buffer.from(box.kid),
        },
        data: Buffer.concat([box.iv, box.data]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // Histories written before the codec existed (and the golden files) hold plain payloads.
      if (!isEncryptedPayload(payload)) return payload;
      const kid = text(payload.metadata?.[KEY_ID_METADATA]);
      const data = payload.data ? Buffer.from(payload.data) : Buffer.alloc(0);
      if (!kid) throw new PayloadCodecError('an encrypted payload names no key');
      if (data.length < 12 + 16) throw new PayloadCodecError('an encrypted payload is truncated');
      try {
        const plain = this.ring.open({ kid, iv: data.subarray(0, 12), data: data.subarray(12) }, aad);
        return temporal.api.common.v1.Payload.decode(plain);
      } catch (err) {
        if (err instanceof KeyRingError) throw new PayloadCodecError(`payload not decoded: ${err.message}`);
        throw err;
      }
    });
  }
}

/**
 * The converter module that encodes failure messages and stack traces (see failure-converter.ts);
 * also given to `bundleWorkflowCode`, since a pre-built bundle carries its own converters.
 */
export const failureConverterPath = require.resolve('./failure-converter');

/** The data converter of every Temporal client, worker and replayer of this project. */
export function dataConverter(ring: KeyRing): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(ring)], failureConverterPath };
}

type Json = Record<string, unknown>;

/**
 * Decodes, in place, every payload of a history fetched with a client (fetchHistory returns it as
 * stored) through `codecs` (a client's: `client.options.loadedDataConverter.payloadCodecs`), and
 * puts encoded failure messages back: for tools that read history as data (the CLI timeline).
 */
export async function decodeHistoryPayloads<T extends object>(
  history: T,
  codecs: readonly PayloadCodec[],
): Promise<T> {
  const decode = async (payloads: Payload[]): Promise<Payload[]> => {
    let out = payloads;
    for (const codec of [...codecs].reverse()) out = await codec.decode(out);
    return out;
  };
  const visit = async (value: unknown): Promise<void> => {
    if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
    if (Array.isArray(value)) {
      const list = value as unknown[];
      if (list.length > 0 && list.every(isPayloadLike))
        list.splice(0, list.length, ...(await decode(list as Payload[])));
      else for (const item of list) await visit(item);
      return;
    }
    const o = value as Json;
    for (const [key, child] of Object.entries(o)) {
      if (isPayloadLike(child)) o[key] = (await decode([child as Payload]))[0];
      else await visit(child);
    }
    restoreFailureMessage(o);
  };
  await visit(history);
  return history;
}

const isPayloadLike = (v: unknown): boolean =>
  !!v &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  'data' in v &&
  !!(v as { metadata?: unknown }).metadata &&
  typeof (v as { metadata?: unknown }).metadata === 'object';

/** A failure whose `encodedAttributes` (now decoded) hold its message and stack trace. */
function restoreFailureMessage(o: Json): void {
  const encoded = o.encodedAttributes as Payload | null | undefined;
  if (!encoded?.data || text(encoded.metadata?.encoding) !== 'json/plain') return;
  try {
    const attrs = JSON.parse(Buffer.from(encoded.data).toString('utf8')) as {
      message?: unknown;
      stack_trace?: unknown;
    };
    if (typeof attrs.message === 'string') o.message = attrs.message;
    if (typeof attrs.stack_trace === 'string') o.stackTrace = attrs.stack_trace;
  } catch {
    // Not the failure converter's schema: leave the failure as it is.
  }
}
