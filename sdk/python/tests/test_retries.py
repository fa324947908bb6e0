"""The retry policy, timeouts and errors against a local stub (httpx.MockTransport; no stack needed)."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import pytest

from momo_payments import (
    AsyncMomoPayments,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    MomoPayments,
    MomoTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    RetryPolicy,
    ServiceUnavailableError,
)

PAYIN = {
    "id": "pr_1", "type": "payin", "reference": "order-1", "status": "processing",
    "confirmationRequired": True, "confirmationStatus": "none", "paymentUrl": None,
    "customer": {"name": "", "phoneNumber": "+2250500000001"},
    "mobileMoney": {"provider": {"name": "MTN_CI"}}, "isDirect": True, "payFee": False,
    "createdAt": "2026-01-01T00:00:00.000Z", "livemode": False, "amount": 5000, "fee": 75,
    "chargedAmount": 5000, "currency": "XOF", "failure": None, "refundedAmount": 0, "refunds": [], "metadata": {},
}
BODY = {"reference": "order-1", "payin": {}, "action": {}}
FAST = RetryPolicy(max_retries=3, initial_delay=0.01, max_delay=0.05)


def problem(status: int, code: str, retry_after: str | None = None) -> httpx.Response:
    headers = {"content-type": "application/problem+json", "x-request-id": "req-1"}
    if retry_after is not None:
        headers["retry-after"] = retry_after
    return httpx.Response(
        status,
        headers=headers,
        json={"type": f"/docs/errors#{code}", "title": code, "status": status, "code": code, "detail": "d",
              "errors": [{"path": "payin.msisdn", "message": "bad"}] if status == 400 else None},
    )


def stub(answers: list[httpx.Response | Exception]) -> tuple[MomoPayments, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    client = MomoPayments("mk_test_x", "sk_test_y", base_url="http://stub", retry=FAST,
                          http_client=httpx.Client(transport=httpx.MockTransport(handler)))
    return client, seen


def test_503_then_success_keeps_the_idempotency_key() -> None:
    client, seen = stub([problem(503, "NOT_AT_OPERATOR_YET"), httpx.Response(201, json=PAYIN)])
    assert client.payins.create_direct(BODY).id == "pr_1"
    keys = {r.headers["x-idempotency-key"] for r in seen}
    assert len(seen) == 2 and len(keys) == 1
    assert seen[0].headers["authorization"].startswith("Basic ")


def test_429_waits_retry_after() -> None:
    client, seen = stub([problem(429, "RATE_LIMITED", "1"), httpx.Response(200, json=PAYIN)])
    start = time.monotonic()
    client.payins.get("order-1")
    assert len(seen) == 2 and time.monotonic() - start >= 0.95


def test_4xx_is_never_retried_and_is_typed() -> None:
    client, seen = stub([problem(400, "VALIDATION_ERROR"), httpx.Response(201, json=PAYIN)])
    with pytest.raises(BadRequestError) as err:
        client.payins.create_direct(BODY)
    assert len(seen) == 1
    e = err.value
    assert (e.status, e.code, e.type, e.request_id) == (400, "VALIDATION_ERROR", "/docs/errors#VALIDATION_ERROR", "req-1")
    assert e.field_errors[0].path == "payin.msisdn"


def test_retries_are_bounded_then_the_error_is_raised() -> None:
    client, seen = stub([problem(503, "X"), problem(503, "X"), problem(503, "X"), problem(503, "X"), problem(503, "X")])
    with pytest.raises(ServiceUnavailableError):
        client.payins.get("order-1")
    assert len(seen) == 4  # the call and 3 retries


def test_a_retry_after_beyond_the_cap_is_not_waited() -> None:
    client, seen = stub([problem(429, "RATE_LIMITED", "3600")])
    with pytest.raises(RateLimitError) as err:
        client.payins.get("order-1")
    assert len(seen) == 1 and err.value.retry_after == 3600


def test_timeouts_are_retried_with_the_same_key_then_raised() -> None:
    client, seen = stub([httpx.ReadTimeout("slow"), httpx.Response(201, json=PAYIN)])
    client.payins.create_direct(BODY)
    assert len({r.headers["x-idempotency-key"] for r in seen}) == 1 and len(seen) == 2
    client2, seen2 = stub([httpx.ConnectTimeout("down")] * 4)
    with pytest.raises(MomoTimeoutError):
        client2.payins.get("order-1")
    assert len(seen2) == 4


def test_a_given_key_and_language_are_sent() -> None:
    client, seen = stub([httpx.Response(201, json=PAYIN)])
    client.payins.create_direct(BODY, idempotency_key="3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14", accept_language="fr")
    assert seen[0].headers["x-idempotency-key"] == "3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14"
    assert seen[0].headers["accept-language"] == "fr"


def test_the_real_timeout_applies() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Slow(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            time.sleep(0.5)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = MomoPayments("mk_test_x", "sk_test_y", base_url=f"http://127.0.0.1:{server.server_port}",
                              timeout=0.1, max_retries=0)
        with pytest.raises(MomoTimeoutError):
            client.payins.get("order-1")
    finally:
        server.shutdown()


async def test_the_async_client_shares_the_policy() -> None:
    seen: list[httpx.Request] = []
    answers: list[Callable[[], httpx.Response]] = [lambda: problem(503, "X", "0"), lambda: httpx.Response(201, json=PAYIN)]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)()

    async with AsyncMomoPayments("mk_test_x", "sk_test_y", base_url="http://stub", retry=FAST,
                                 http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))) as client:
        payin = await client.payins.create_direct(BODY)
    assert payin.id == "pr_1" and len({r.headers["x-idempotency-key"] for r in seen}) == 1 and len(seen) == 2


def test_409_request_in_progress_is_retried_with_the_same_key_after_retry_after() -> None:
    client, seen = stub([problem(409, "REQUEST_IN_PROGRESS", "1"), httpx.Response(201, json=PAYIN)])
    start = time.monotonic()
    assert client.payins.create_direct(BODY).id == "pr_1"
    assert len(seen) == 2 and len({r.headers["x-idempotency-key"] for r in seen}) == 1
    assert time.monotonic() - start >= 0.95
    client2, seen2 = stub([problem(409, "REQUEST_IN_PROGRESS", "0")] * 4)
    with pytest.raises(ConflictError) as err:
        client2.payins.create_direct(BODY)
    assert err.value.code == "REQUEST_IN_PROGRESS" and len(seen2) == 4


@pytest.mark.parametrize("code", ["DUPLICATE_REFUND", "IDEMPOTENCY_KEY_REUSED", "ALREADY_FINAL"])
def test_any_other_409_is_final(code: str) -> None:
    client, seen = stub([problem(409, code, "0"), httpx.Response(201, json=PAYIN)])
    with pytest.raises(ConflictError) as err:
        client.payins.create_direct(BODY)
    assert err.value.code == code and len(seen) == 1


def test_401_and_403_are_told_apart() -> None:
    client, _ = stub([problem(401, "UNAUTHORIZED"), problem(403, "INSUFFICIENT_BALANCE")])
    with pytest.raises(AuthenticationError):
        client.payins.get("order-1")
    with pytest.raises(PermissionDeniedError) as err:
        client.payins.get("order-1")
    assert not isinstance(err.value, AuthenticationError) and err.value.code == "INSUFFICIENT_BALANCE"


def test_the_metadata_filter_is_sent_as_a_deep_object() -> None:
    page = {"data": [], "nextCursor": None}
    client, seen = stub([httpx.Response(200, json=page)])
    client.transactions.list(metadata={"orderId": "1001", "channel": "web"}, status="success")
    params = seen[0].url.params
    assert params.get_list("metadata[orderId]") == ["1001"] and params.get_list("metadata[channel]") == ["web"]
    assert params["status"] == "success" and "metadata" not in params
    assert b"metadata%5BorderId%5D=1001" in seen[0].url.query


def test_status_codes_are_plain_ints() -> None:
    import typing

    from momo_payments import models

    error = models.WebhookEndpointWithHealthHealthLastError.model_validate(
        {"at": "2026-01-01T00:00:00.000Z", "statusCode": 500, "error": "HTTP 500"}
    )
    assert error.statusCode == 500 and type(error.statusCode) is int
    # Every nullable integer of the document (statusCode, entryCount): int | None, not a RootModel.
    fields = [
        (model.__name__, name, field.annotation)
        for model in vars(models).values()
        if isinstance(model, type) and issubclass(model, models.BaseModel)
        for name, field in model.model_fields.items()
        if name in {"statusCode", "entryCount"}
    ]
    assert len(fields) == 4
    for model_name, name, annotation in fields:
        assert typing.get_args(annotation) == (int, type(None)), (model_name, name, annotation)
