"""Webhook verification (Standard Webhooks, https://www.standardwebhooks.com/): one call that checks
the signature against one or several secrets (rotation) and the timestamp's tolerance, then returns
the typed event. hmac/hashlib only: the scheme is 20 lines, not worth a dependency
(docs/decisions/sdks/python-webhook-verification-with-hmac.md).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import InvalidWebhookSecretError, WebhookVerificationError
from ._events import AnyEvent, parse_event

#: The 5 minutes Standard Webhooks recommends (and the service's docs promise).
DEFAULT_TOLERANCE = 300
_PREFIX = "whsec_"
#: Standard Webhooks: a symmetric secret is 24 to 64 random bytes (192 to 512 bits).
MIN_SECRET_BYTES = 24
MAX_SECRET_BYTES = 64
_STRICT_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_EXPECTED = f'expected "whsec_" followed by the base64 of {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes'


def _key(secret: str) -> bytes:
    """The HMAC key of a secret; refuses, as the Node and PHP SDKs do, an empty one (anyone can sign
    with an empty key), "whsec_" alone, anything but strict base64, or a key not 24 to 64 bytes."""
    if not isinstance(secret, str):
        raise InvalidWebhookSecretError(f"The webhook secret is not a string; {_EXPECTED}")
    raw = secret[len(_PREFIX) :] if secret.startswith(_PREFIX) else secret
    if raw == "":
        raise InvalidWebhookSecretError(f"The webhook secret is empty (is it set?); {_EXPECTED}")
    if not _STRICT_BASE64.fullmatch(raw):
        raise InvalidWebhookSecretError(f"The webhook secret is not valid base64; {_EXPECTED}")
    key = base64.b64decode(raw, validate=True)
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise InvalidWebhookSecretError(f"The webhook secret decodes to {len(key)} bytes; {_EXPECTED}")
    return key


def _header(headers: Mapping[str, Any], name: str) -> str:
    # Frameworks differ on header case (Django's META aside): look the name up case-insensitively.
    for key, value in headers.items():
        if str(key).lower() == name:
            return str(value)
    raise WebhookVerificationError(f"missing header {name}")


class Webhook:
    """Verifies webhook requests signed with any of `secrets` ("whsec_…"; several during a rotation).

    Raises InvalidWebhookSecretError at construction when a secret is empty or malformed.
    """

    def __init__(self, secrets: str | Iterable[str], *, tolerance: int = DEFAULT_TOLERANCE) -> None:
        listed = [secrets] if isinstance(secrets, str) else list(secrets)
        if not listed:
            raise InvalidWebhookSecretError(f"No webhook secret given; {_EXPECTED}")
        self._keys = [_key(s) for s in listed]
        self.tolerance = tolerance

    def sign(self, msg_id: str, timestamp: int, payload: bytes | str) -> str:
        """The `webhook-signature` value for the first secret (tests and local tools)."""
        return "v1," + self._signature(self._keys[0], msg_id, timestamp, _bytes(payload))

    @staticmethod
    def _signature(key: bytes, msg_id: str, timestamp: int | str, payload: bytes) -> str:
        signed = f"{msg_id}.{timestamp}.".encode() + payload
        return base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()

    def verify_payload(self, payload: bytes | str, headers: Mapping[str, Any]) -> bytes:
        """Checks the headers and signature of a raw body; returns the body, still raw."""
        body = _bytes(payload)
        msg_id = _header(headers, "webhook-id")
        timestamp_text = _header(headers, "webhook-timestamp")
        signatures = _header(headers, "webhook-signature")
        try:
            timestamp = int(timestamp_text)
        except ValueError:
            raise WebhookVerificationError("invalid webhook-timestamp") from None
        now = int(time.time())
        if timestamp < now - self.tolerance:
            raise WebhookVerificationError("message timestamp too old")
        if timestamp > now + self.tolerance:
            raise WebhookVerificationError("message timestamp too new")
        expected = [self._signature(k, msg_id, timestamp_text, body) for k in self._keys]
        for candidate in signatures.split(" "):
            version, _, signature = candidate.partition(",")
            if version != "v1":
                continue
            if any(hmac.compare_digest(signature.encode(), e.encode()) for e in expected):
                return body
        raise WebhookVerificationError("no matching signature")

    def verify(self, payload: bytes | str, headers: Mapping[str, Any]) -> AnyEvent:
        """Verifies the request (raw body + headers) and returns its typed event.

        Raises WebhookVerificationError when it is forged, altered or outside the tolerance.
        """
        body = self.verify_payload(payload, headers)
        try:
            return parse_event(body)
        except ValueError as exc:
            raise WebhookVerificationError("the signed body is not an event") from exc


def verify_webhook(
    payload: bytes | str,
    headers: Mapping[str, Any],
    secrets: str | Iterable[str],
    *,
    tolerance: int = DEFAULT_TOLERANCE,
) -> AnyEvent:
    """One call: verify a webhook request and return its typed event (see Webhook.verify)."""
    return Webhook(secrets, tolerance=tolerance).verify(payload, headers)


def _bytes(payload: bytes | str) -> bytes:
    return payload.encode() if isinstance(payload, str) else payload
