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

from momo_payments import Webhook, WebhookVerificationError, models, verify_webhook

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
