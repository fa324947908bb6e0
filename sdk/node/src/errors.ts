// Typed errors. Messages are built from the problem's code and title only: a detail may echo what
// the caller sent, and the SDK never puts customer data (numbers, names) into a message it builds.

export interface FieldError {
  /** The field's path in the request, e.g. `payin.msisdn`. */
  path: string;
  message: string;
}

/** Every error thrown by the SDK. */
export class MomoError extends Error {
  override name = 'MomoError';
}

/** The API answered with an `application/problem+json` (or another non-2xx answer). */
export class MomoApiError extends MomoError {
  override name = 'MomoApiError';
  /** HTTP status. */
  readonly status: number;
  /** The problem's `type` (a link to the error reference, `/docs/errors#CODE`). */
  readonly type: string;
  /** Stable machine-readable code, e.g. `VALIDATION_ERROR`. */
  readonly code: string;
  /** Localized title (Accept-Language). */
  readonly title: string;
  /** Localized detail, when the API gives one. */
  readonly detail: string | undefined;
  /** Field errors of a validation problem (`errors[]`). */
  readonly fieldErrors: FieldError[];
  /** The `X-Request-Id` of the answer: quote it to support. */
  readonly requestId: string | undefined;
  /** The idempotency key the request was sent with (POST only). */
  readonly idempotencyKey: string | undefined;
  /** Seconds from `Retry-After`, when present. */
  readonly retryAfter: number | undefined;
  /** The raw problem body. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    body: unknown;
    requestId?: string | undefined;
    idempotencyKey?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    const problem = (typeof init.body === 'object' && init.body !== null ? init.body : {}) as Record<
      string,
      unknown
    >;
    const code = typeof problem.code === 'string' ? problem.code : `HTTP_${init.status}`;
    const title = typeof problem.title === 'string' ? problem.title : `HTTP ${init.status}`;
    super(`${code} (HTTP ${init.status}): ${title}${init.requestId ? ` [request ${init.requestId}]` : ''}`);
    this.status = init.status;
    this.code = code;
    this.title = title;
    this.type = typeof problem.type === 'string' ? problem.type : 'about:blank';
    this.detail = typeof problem.detail === 'string' ? problem.detail : undefined;
    this.fieldErrors = Array.isArray(problem.errors)
      ? (problem.errors as unknown[]).flatMap((e) =>
          typeof e === 'object' && e !== null && typeof (e as FieldError).path === 'string'
            ? [{ path: (e as FieldError).path, message: String((e as FieldError).message) }]
            : [],
        )
      : [];
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }
}

/** The request did not get an answer (connection refused, reset, DNS). */
export class MomoConnectionError extends MomoError {
  override name = 'MomoConnectionError';
  constructor(
    message: string,
    readonly idempotencyKey?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No answer within `timeoutMs` (after the retries). */
export class MomoTimeoutError extends MomoConnectionError {
  override name = 'MomoTimeoutError';
}

/** A webhook whose signature, timestamp or body is not acceptable. */
export class WebhookVerificationError extends MomoError {
  override name = 'WebhookVerificationError';
}

/**
 * A webhook secret that cannot be a Standard Webhooks secret: empty (an unset environment variable),
 * `whsec_` alone, not strict base64, or not decoding to 24 to 64 bytes. A configuration error, thrown
 * before any request is looked at: never answer it as a forged webhook. The message never quotes the
 * secret.
 */
export class InvalidWebhookSecretError extends MomoError {
  override name = 'InvalidWebhookSecretError';
}
