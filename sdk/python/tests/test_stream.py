"""The WebSocket event stream, with resume (after a new connection, and inside one stream when its
connection drops), and the async client on a whole flow."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from momo_payments import AnyEvent, AsyncMomoPayments, EventStream, MomoPayments, models

from .conftest import direct_payin, env, reference, wait_until


def next_for(stream: EventStream, ref: str, kind: str = "payin.completed", timeout: float = 20) -> AnyEvent:
    while True:
        event = stream.recv(timeout=timeout)
        if event.type == kind and getattr(event.data, "reference", None) == ref:
            return event


@pytest.fixture
def refs() -> Iterator[list[str]]:
    yield [reference("ws") for _ in range(3)]


def test_stream_receives_resumes_after_last_event_id_and_reconnects(client: MomoPayments, refs: list[str]) -> None:
    a, b, c = refs
    with client.events.stream(references=refs) as stream:
        client.payins.create_direct(direct_payin(a))
        first = next_for(stream, a)
        assert isinstance(first, models.PayinCompletedEvent)
        last = stream.last_event_id
        assert last == first.id

    # Recorded while nobody listened: a new stream resuming after `last` is sent it first.
    client.payins.create_direct(direct_payin(b))
    wait_until(lambda: client.events.list(reference=b, type="payin.completed"), lambda p: bool(p.data))
    with client.events.stream(references=refs, last_event_id=last) as resumed:
        replayed = next_for(resumed, b)
        assert replayed.data.reference == b  # type: ignore[union-attr]

        # The connection drops: the stream reconnects by itself and resumes after what it handed out.
        assert resumed.connection is not None
        resumed.connection.close()
        client.payins.create_direct(direct_payin(c))
        after_drop = next_for(resumed, c)
        assert after_drop.id != replayed.id


def test_a_browser_token_for_the_stream(client: MomoPayments) -> None:
    token = client.events.create_stream_token()
    assert token.token.startswith("wst_") and "/v1/ws?token=" in token.url


async def test_async_client_on_a_payin_its_events_and_the_stream() -> None:
    async with AsyncMomoPayments(
        env("MOMO_API_KEY"), env("MOMO_API_CLIENT"), base_url=env("MOMO_BASE_URL"), timeout=20
    ) as client:
        ref = reference("async")
        async with client.events.stream(references=[ref]) as stream:
            payin = await client.payins.create_direct(direct_payin(ref))
            event = await stream.recv(timeout=20)
            while event.type != "payin.completed":
                event = await stream.recv(timeout=20)
            assert isinstance(event, models.PayinCompletedEvent) and event.data.id == payin.id
        for _ in range(40):
            if (await client.payins.get(ref)).status == "success":
                break
            await asyncio.sleep(0.25)
        assert (await client.payins.get(ref)).status == "success"
        events = [e async for e in client.events.iter(reference=ref)]
        assert event.id in [e.id for e in events]
        accounts = await client.accounts.list()
        assert accounts.data
