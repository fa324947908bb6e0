"""Python SDK of the Mobile Money Payments API.

    from momo_payments import MomoPayments
    client = MomoPayments(api_key, api_client, base_url="https://api.example.com")
    payin = client.payins.create_direct({...})
"""

from . import _models as models
from ._client import AsyncMomoPayments, MomoPayments
from ._core import RetryPolicy
from ._errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    EventStreamError,
    FieldError,
    InvalidWebhookSecretError,
    MomoApiError,
    MomoConnectionError,
    MomoError,
    MomoTimeoutError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnprocessableEntityError,
    WebhookVerificationError,
)
from ._events import AnyEvent, parse_event
from ._stream import AsyncEventStream, EventStream
from ._version import __version__
from ._webhooks import Webhook, verify_webhook

__all__ = [
    "AnyEvent",
    "AsyncEventStream",
    "AsyncMomoPayments",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "EventStream",
    "EventStreamError",
    "FieldError",
    "InvalidWebhookSecretError",
    "MomoApiError",
    "MomoConnectionError",
    "MomoError",
    "MomoPayments",
    "MomoTimeoutError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "Webhook",
    "WebhookVerificationError",
    "__version__",
    "models",
    "parse_event",
    "verify_webhook",
]
