"""Fixtures of the suite: clients on the running stack (env: MOMO_BASE_URL, MOMO_API_KEY,
MOMO_API_CLIENT, MOMO_MERCHANT_ID, MOMO_FAULT_URL), and a webhook receiver in Python registered with
the SDK, which verifies each delivery with the SDK's one-call verifier as a merchant's app would.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import pytest

from momo_payments import AnyEvent, MomoPayments, Webhook, WebhookVerificationError

T = TypeVar("T")


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set (run sdk/python/run-tests.sh against a running stack)")
    return value


def reference(prefix: str = "py") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def wait_until(read: Callable[[], T], done: Callable[[T], bool], timeout: float = 20, every: float = 0.25) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout}s: {value!r}")
        time.sleep(every)


PAYIN_ACTION = {"successUrl": "https://shop.example/ok", "failureUrl": "https://shop.example/ko"}
CUSTOMER_CI = "+2250500000001"  # MTN CI test number: completes as the scenario says (docs/sandbox.md)


def direct_payin(ref: str, scenario: str = "completed", amount: int = 5000) -> dict[str, Any]:
    return {
        "reference": ref,
        "sandboxScenario": scenario,
        "payin": {"amount": amount, "msisdn": CUSTOMER_CI, "provider": "MTN", "country": "CI"},
        "action": PAYIN_ACTION,
    }


@pytest.fixture(scope="session")
def client() -> Iterator[MomoPayments]:
    with MomoPayments(
        env("MOMO_API_KEY"), env("MOMO_API_CLIENT"), base_url=env("MOMO_BASE_URL"), timeout=20
    ) as c:
        yield c


class Receiver:
    """A merchant's webhook endpoint: verifies each request with the SDK, answers 204 or 400."""

    def __init__(self) -> None:
        self.webhook: Webhook | None = None
        self.events: list[AnyEvent] = []
        self.rejected = 0
        self.cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    assert receiver.webhook is not None
                    event = receiver.webhook.verify(body, dict(self.headers.items()))
                except WebhookVerificationError:
                    with receiver.cond:
                        receiver.rejected += 1
                    self.send_response(400)
                    self.end_headers()
                    return
                with receiver.cond:
                    receiver.events.append(event)
                    receiver.cond.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/payments"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, match: Callable[[AnyEvent], bool], timeout: float = 20) -> AnyEvent:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for event in self.events:
                    if match(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no matching webhook within {timeout}s ({len(self.events)} received)")
                self.cond.wait(left)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def receiver(client: MomoPayments) -> Iterator[tuple[Receiver, Any]]:
    r = Receiver()
    endpoint = client.webhook_endpoints.create({"url": r.url, "description": "python sdk tests"})
    r.webhook = Webhook(endpoint.secret)
    try:
        yield r, endpoint
    finally:
        try:
            client.webhook_endpoints.delete(endpoint.id)
        finally:
            r.close()
