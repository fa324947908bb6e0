"""The official Standard Webhooks test vectors, and the SDK's own verification cases (no stack needed).

The vectors (secret, message id, payload, the signature of timestamp 1614265330, the forged
signature, the multi-signature header) are copied from the Standard Webhooks reference library's
tests: github.com/standard-webhooks/standard-webhooks, libraries/python/tests/test_webhooks.py
(commit 33d368b20c5543357f4f27fd13bed0703b8c5204), which its JavaScript, PHP and other libraries
share.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

from momo_payments import (
    InvalidWebhookSecretError,
    Webhook,
    WebhookVerificationError,
    models,
    verify_webhook,
)

SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
PAYLOAD = '{"test": 2432232314}'
SIGN_TIMESTAMP = 1614265330
SIGN_EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
FORGED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="
OTHER_SIGNATURE = "Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
TOLERANCE = 300


def signed(timestamp: int | None = None, secret: str = SECRET, payload: str = PAYLOAD) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    mac = hmac.new(base64.b64decode(secret), f"{MSG_ID}.{ts}.{payload}".encode(), hashlib.sha256).digest()
    return {
        "webhook-id": MSG_ID,
        "webhook-timestamp": ts,
        "webhook-signature": "v1," + base64.b64encode(mac).decode(),
    }


def test_sign_matches_the_reference_signature() -> None:
    assert Webhook("whsec_" + SECRET).sign(MSG_ID, SIGN_TIMESTAMP, PAYLOAD) == SIGN_EXPECTED


def test_valid_signature_returns_the_payload() -> None:
    body = Webhook(SECRET).verify_payload(PAYLOAD, signed())
    assert json.loads(body)["test"] == 2432232314


def test_secret_with_and_without_prefix() -> None:
    headers = signed()
    assert Webhook(SECRET).verify_payload(PAYLOAD, headers)
    assert Webhook("whsec_" + SECRET).verify_payload(PAYLOAD, headers)


@pytest.mark.parametrize("missing", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_a_missing_header_fails(missing: str) -> None:
    headers = signed()
    del headers[missing]
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify_payload(PAYLOAD, headers)


def test_an_invalid_timestamp_fails() -> None:
    headers = signed()
    headers["webhook-timestamp"] = "hello"
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify_payload(PAYLOAD, headers)


def test_a_forged_signature_fails() -> None:
    headers = signed()
    headers["webhook-signature"] = FORGED
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify_payload(PAYLOAD, headers)


def test_a_changed_body_fails() -> None:
    with pytest.raises(WebhookVerificationError):
        Webhook(SECRET).verify_payload(PAYLOAD.replace("2", "3"), signed())


def test_too_old_and_too_new_timestamps_fail() -> None:
    now = int(time.time())
    for ts in (now - TOLERANCE - 1, now + TOLERANCE + 1):
        with pytest.raises(WebhookVerificationError):
            Webhook(SECRET).verify_payload(PAYLOAD, signed(ts))


def test_multiple_signatures_one_valid_is_enough() -> None:
    headers = signed()
    headers["webhook-signature"] = " ".join(
        ["v1," + OTHER_SIGNATURE, "v2," + OTHER_SIGNATURE, headers["webhook-signature"], "v1," + OTHER_SIGNATURE]
    )
    assert Webhook(SECRET).verify_payload(PAYLOAD, headers)


def test_several_secrets_during_a_rotation() -> None:
    old = base64.b64encode(b"an older secret of 32 bytes!!!!!").decode()
    headers = signed(secret=old)
    assert Webhook(["whsec_" + SECRET, "whsec_" + old]).verify_payload(PAYLOAD, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + SECRET).verify_payload(PAYLOAD, headers)


def test_header_names_are_case_insensitive_and_the_event_typed() -> None:
    event = {
        "id": "evt_1",
        "type": "statement.ready",
        "createdAt": "2026-01-01T00:00:00.000Z",
        "livemode": False,
        "data": {
            "id": "st_1", "status": "ready", "accountId": "acc_1", "currency": "XOF",
            "from": "2026-01-01T00:00:00.000Z", "to": "2026-01-02T00:00:00.000Z", "format": "csv",
            "createdAt": "2026-01-01T00:00:00.000Z", "livemode": False, "entryCount": 0,
            "openingBalance": 0, "closingBalance": 0, "readyAt": None, "download": None,
        },
    }
    body = json.dumps(event)
    headers = {k.title(): v for k, v in signed(payload=body).items()}
    parsed = verify_webhook(body.encode(), headers, "whsec_" + SECRET)
    assert isinstance(parsed, models.StatementReadyEvent)
    assert parsed.data.id == "st_1"


# The same secrets are refused by the three SDKs, at construction, with the same InvalidWebhookSecretError
# (docs/decisions/sdks/webhook-secret-refused-unless-24-to-64-bytes.md).
def _b64(n: int) -> str:
    return base64.b64encode(bytes([7]) * n).decode()


REFUSED_SECRETS = {
    "empty": "",
    "whsec_ with nothing after": "whsec_",
    "not base64": "whsec_not*base64!",
    "base64 without its padding": "whsec_" + _b64(25).rstrip("="),
    "base64url": "whsec_" + base64.urlsafe_b64encode(bytes([0xFB]) * 27).decode(),
    "base64 with a space": "whsec_ " + _b64(24),
    "base64 with a line break": "whsec_" + _b64(24) + "\n",
    "padding alone": "whsec_====",
    "decoding to 23 bytes": "whsec_" + _b64(23),
    "decoding to 65 bytes": "whsec_" + _b64(65),
}


def _forged_with_an_empty_key() -> dict[str, str]:
    ts = str(int(time.time()))
    mac = hmac.new(b"", f"{MSG_ID}.{ts}.{PAYLOAD}".encode(), hashlib.sha256).digest()
    return {"webhook-id": MSG_ID, "webhook-timestamp": ts, "webhook-signature": "v1," + base64.b64encode(mac).decode()}


@pytest.mark.parametrize("secret", list(REFUSED_SECRETS.values()), ids=list(REFUSED_SECRETS))
def test_an_empty_or_malformed_secret_is_refused_at_construction(secret: str) -> None:
    with pytest.raises(InvalidWebhookSecretError):
        Webhook(secret)
    with pytest.raises(InvalidWebhookSecretError):
        Webhook(["whsec_" + SECRET, secret])
    with pytest.raises(InvalidWebhookSecretError):
        verify_webhook(PAYLOAD, _forged_with_an_empty_key(), secret)


def test_the_secret_error_is_a_configuration_error_never_quoting_the_secret() -> None:
    short = "whsec_" + _b64(10)
    with pytest.raises(InvalidWebhookSecretError) as err:
        Webhook(short)
    assert not isinstance(err.value, WebhookVerificationError)
    assert isinstance(err.value, ValueError)  # what Webhook raised for bad base64 before 1.0.1
    assert "24 to 64 bytes" in str(err.value) and _b64(10) not in str(err.value)
    with pytest.raises(InvalidWebhookSecretError):
        Webhook([])


def test_secrets_of_24_and_64_bytes_are_accepted() -> None:
    for secret in ("whsec_" + _b64(24), _b64(24), "whsec_" + _b64(64)):
        with pytest.raises(WebhookVerificationError, match="no matching signature"):
            Webhook(secret).verify_payload(PAYLOAD, _forged_with_an_empty_key())
