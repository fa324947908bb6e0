"""The SDK's exceptions: every failure the caller can meet is a MomoError."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx


class MomoError(Exception):
    """Base class of every exception the SDK raises."""


@dataclass(frozen=True)
class FieldError:
    """One entry of a problem's `errors[]`: the field's path and what is wrong with it."""

    path: str
    message: str


class MomoApiError(MomoError):
    """The API answered a problem (application/problem+json, RFC 9457), or another non-2xx answer.

    The message is built from the problem's code and localized title/detail only: those never carry
    the customer's phone number or name, so logging the exception is safe.
    """

    def __init__(
        self,
        *,
        status: int,
        type: str | None,
        code: str | None,
        title: str | None,
        detail: str | None,
        field_errors: list[FieldError],
        request_id: str | None,
        retry_after: float | None,
        body: Any,
    ) -> None:
        self.status = status
        self.type = type
        self.code = code
        self.title = title
        self.detail = detail
        self.field_errors = field_errors
        self.request_id = request_id
        self.retry_after = retry_after
        self.body = body
        text = f"{status} {code or 'HTTP_ERROR'}: {detail or title or 'request failed'}"
        if request_id:
            text += f" (request id {request_id})"
        super().__init__(text)

    @classmethod
    def from_response(cls, response: httpx.Response) -> MomoApiError:
        body: Any = None
        try:
            body = response.json()
        except ValueError:
            body = response.text
        problem: dict[str, Any] = body if isinstance(body, dict) else {}
        errors = problem.get("errors")
        field_errors = [
            FieldError(path=str(e.get("path", "")), message=str(e.get("message", "")))
            for e in (errors if isinstance(errors, list) else [])
            if isinstance(e, dict)
        ]

        def text(key: str) -> str | None:
            value = problem.get(key)
            return value if isinstance(value, str) else None

        status = problem.get("status")
        error_class = _BY_STATUS.get(response.status_code, MomoApiError)
        return error_class(
            status=status if isinstance(status, int) else response.status_code,
            type=text("type"),
            code=text("code"),
            title=text("title"),
            detail=text("detail"),
            field_errors=field_errors,
            request_id=response.headers.get("x-request-id"),
            retry_after=parse_retry_after(response.headers.get("retry-after")),
            body=body,
        )


class BadRequestError(MomoApiError):
    """400: invalid input; `field_errors` names the fields."""


class AuthenticationError(MomoApiError):
    """401: missing or wrong credentials."""


class PermissionDeniedError(MomoApiError):
    """403."""


class NotFoundError(MomoApiError):
    """404."""


class ConflictError(MomoApiError):
    """409: e.g. the same idempotency key with another body, or a transaction already final."""


class UnprocessableEntityError(MomoApiError):
    """422."""


class RateLimitError(MomoApiError):
    """429, once the SDK's own retries are spent."""


class ServiceUnavailableError(MomoApiError):
    """503, once the SDK's own retries are spent."""


_BY_STATUS: dict[int, type[MomoApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


class MomoConnectionError(MomoError):
    """The API could not be reached (after the SDK's retries)."""


class MomoTimeoutError(MomoConnectionError):
    """The API did not answer in time (after the SDK's retries)."""


class WebhookVerificationError(MomoError):
    """A webhook's signature, timestamp or headers are wrong: answer 400 and do not trust the body."""


class InvalidWebhookSecretError(MomoError, ValueError):
    """A webhook secret that cannot be a Standard Webhooks secret: empty (an unset environment
    variable), "whsec_" alone, not strict base64, or not decoding to 24 to 64 bytes.

    A configuration error raised at construction, before any request is looked at: never answer it as
    a forged webhook. A ValueError, as a malformed secret raised before. The message never quotes the
    secret.
    """


class EventStreamError(MomoError):
    """The event stream refused the connection or a message (`code` as the server sent it)."""

    def __init__(self, message: str, code: str | None = None) -> None:
        self.code = code
        super().__init__(message)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After in seconds or as an HTTP date, as seconds from now."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime
    from datetime import datetime, timezone

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
