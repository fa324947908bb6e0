"""Retries proven on the real API through the harness's fault proxy (MOMO_FAULT_URL, test/sdk/fault-proxy.ts):
its log shows every request the SDK sent, with its idempotency key and whether the answer was injected.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from momo_payments import BadRequestError, MomoPayments, RetryPolicy

from .conftest import direct_payin, env, reference

# One proxy, armed for "the next requests": its tests run one after the other on one worker.
pytestmark = pytest.mark.xdist_group("fault-proxy")


@pytest.fixture
def faults() -> Iterator[httpx.Client]:
    with httpx.Client(base_url=env("MOMO_FAULT_URL"), timeout=10) as control:
        control.delete("/__faults")
        control.delete("/__faults/log")
        yield control
        control.delete("/__faults")


@pytest.fixture
def proxied() -> Iterator[MomoPayments]:
    # Short backoff so the suite stays fast; Retry-After, when sent, still rules.
    with MomoPayments(
        env("MOMO_API_KEY"), env("MOMO_API_CLIENT"), base_url=env("MOMO_FAULT_URL"), timeout=20,
        retry=RetryPolicy(max_retries=3, initial_delay=0.1, max_delay=1),
    ) as c:
        yield c


def log(control: httpx.Client, path_start: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = control.get("/__faults/log").json()
    return [e for e in entries if e["path"].startswith(path_start)]


def create_through_one_staged_answer(
    faults: httpx.Client, proxied: MomoPayments, client: MomoPayments, status: int, label: str
) -> list[dict[str, Any]]:
    """A direct payin through the proxy, whose first answer is `status` (the request itself forwarded):
    the retry carries the same key and gets the payin the first attempt created, once. The log."""
    faults.post("/__faults", json={"status": status, "retryAfter": 1, "times": 1, "forward": True})
    ref = reference(label)
    payin = proxied.payins.create_direct(direct_payin(ref))
    entries = log(faults, "/v1/direct/payin")
    assert [e["injected"] for e in entries] == [True, False]
    assert entries[0]["idempotencyKey"] and entries[0]["idempotencyKey"] == entries[1]["idempotencyKey"]
    # The API acted on the first request (its answer was thrown away): the retry got that same payin.
    assert client.payins.get(ref).id == payin.id
    assert len(client.transactions.list(reference=ref).data) == 1
    return entries


def test_503_forwarded_then_retried_with_the_same_key_creates_once(
    faults: httpx.Client, proxied: MomoPayments, client: MomoPayments
) -> None:
    create_through_one_staged_answer(faults, proxied, client, 503, "f503")


def test_409_request_in_progress_forwarded_then_retried_gets_the_stored_answer(
    faults: httpx.Client, proxied: MomoPayments, client: MomoPayments
) -> None:
    # What a merchant meets when its retry reaches another API process while the first answer is stored.
    entries = create_through_one_staged_answer(faults, proxied, client, 409, "f409")
    assert entries[0]["status"] == 409
    assert entries[1]["status"] in (200, 201)


def test_429_is_retried_after_retry_after(faults: httpx.Client, proxied: MomoPayments) -> None:
    faults.post("/__faults", json={"status": 429, "retryAfter": 1, "times": 1, "forward": False})
    start = time.monotonic()
    accounts = proxied.accounts.list()
    elapsed = time.monotonic() - start
    assert accounts.data
    entries = log(faults, "/v1/accounts")
    assert [(e["status"], e["injected"]) for e in entries] == [(429, True), (200, False)]
    assert elapsed >= 0.95


def test_429_on_a_post_keeps_the_key(faults: httpx.Client, proxied: MomoPayments) -> None:
    faults.post("/__faults", json={"status": 429, "retryAfter": 1, "times": 2, "forward": False})
    payin = proxied.payins.create_direct(direct_payin(reference("f429")))
    entries = log(faults, "/v1/direct/payin")
    assert [e["injected"] for e in entries] == [True, True, False]
    assert len({e["idempotencyKey"] for e in entries}) == 1
    assert payin.id


def test_a_4xx_is_sent_once(faults: httpx.Client, proxied: MomoPayments) -> None:
    with pytest.raises(BadRequestError) as err:
        proxied.payins.create_direct({"reference": reference("f400")})
    assert err.value.code == "VALIDATION_ERROR"
    entries = log(faults, "/v1/direct/payin")
    assert [(e["status"], e["injected"]) for e in entries] == [(400, False)]
