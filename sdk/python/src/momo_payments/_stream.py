"""The WebSocket event stream (GET /v1/ws, docs/events.md) with resume: after a dropped connection
the stream reconnects and subscribes again with the last event id it handed out, so the server
replays what was recorded meanwhile; each event is handed out once.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.sync.client import ClientConnection, connect

from ._core import ClientConfig, Operation
from ._errors import EventStreamError, MomoConnectionError
from ._events import AnyEvent, parse_event

#: Close codes after which reconnecting with the same credentials is useless (docs/events.md).
FATAL_CLOSE_CODES = frozenset({4001, 4003})


class _StreamState:
    """What the sync and async streams share: the URL, the subscribe message, the reading of messages."""

    def __init__(
        self,
        config: ClientConfig,
        op: Operation,
        references: Sequence[str] | None,
        last_event_id: str | None,
        reconnect: bool,
    ) -> None:
        self.config = config
        base = config.base_url.rstrip("/")
        self.url = ("wss://" + base[8:] if base.startswith("https://") else "ws://" + base.split("://", 1)[-1]) + op.path
        self.references = None if references is None else list(references)
        self.last_event_id = last_event_id
        self.reconnect = reconnect
        self.failures = 0
        self.closed = False
        self.replayed: int | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": self.config.authorization, "User-Agent": self.config.user_agent}

    def subscribe_message(self) -> str:
        message: dict[str, Any] = {"type": "subscribe"}
        if self.references is not None:
            message["references"] = self.references
        if self.last_event_id:
            message["lastEventId"] = self.last_event_id
        return json.dumps(message)

    def read(self, raw: str | bytes) -> AnyEvent | None:
        """An event to hand out, or None for the protocol's other messages."""
        message = json.loads(raw)
        kind = message.get("type")
        if kind == "event":
            event = parse_event(message["event"])
            self.last_event_id = event.id
            return event
        if kind == "subscribed":
            self.replayed = message.get("replayed")
        if kind == "error":
            raise EventStreamError(f"the event stream answered {message.get('code')}", message.get("code"))
        return None

    def retry_delay(self, exc: Exception) -> float:
        """Backoff before reconnecting, or raises when the failure is final."""
        if isinstance(exc, ConnectionClosed):
            code = exc.rcvd.code if exc.rcvd else None
            if code in FATAL_CLOSE_CODES:
                raise EventStreamError(f"the event stream was closed ({code})", str(code)) from exc
        if isinstance(exc, InvalidStatus) and exc.response.status_code in (401, 403):
            raise EventStreamError(
                f"the event stream refused the credentials ({exc.response.status_code})", "UNAUTHORIZED"
            ) from exc
        if not self.reconnect or self.failures >= self.config.retry.max_retries:
            raise MomoConnectionError(f"the event stream is unavailable ({type(exc).__name__})") from exc
        delay = self.config.retry.backoff(self.failures)
        self.failures += 1
        return delay


class EventStream:
    """Iterate to receive typed events; `recv(timeout=…)` waits for one. Close it (or use `with`)."""

    def __init__(
        self,
        config: ClientConfig,
        op: Operation,
        *,
        references: Sequence[str] | None = None,
        last_event_id: str | None = None,
        reconnect: bool = True,
    ) -> None:
        self._s = _StreamState(config, op, references, last_event_id, reconnect)
        self._ws: ClientConnection | None = None

    @property
    def last_event_id(self) -> str | None:
        """The id to resume after (pass it as `last_event_id` to a later `stream`)."""
        return self._s.last_event_id

    @property
    def connection(self) -> ClientConnection | None:
        return self._ws

    def __enter__(self) -> EventStream:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._s.closed = True
        if self._ws is not None:
            self._ws.close()
            self._ws = None

    def connect(self) -> None:
        """Opens the connection and subscribes (resuming after last_event_id), retrying as configured."""
        while self._ws is None:
            try:
                # Entered by hand: the stream outlives this call (websockets 17.1+ warns otherwise).
                ws = connect(
                    self._s.url, additional_headers=self._s.headers, open_timeout=self._s.config.timeout
                ).__enter__()
                try:
                    ws.send(self._s.subscribe_message())
                except BaseException:
                    ws.close()
                    raise
                self._ws = ws
            except (WebSocketException, OSError, TimeoutError) as exc:
                time.sleep(self._s.retry_delay(exc))

    def recv(self, timeout: float | None = None) -> AnyEvent:
        """The next event; raises TimeoutError when none came within `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._s.closed:
                raise EventStreamError("the event stream is closed")
            self.connect()
            assert self._ws is not None
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                raw = self._ws.recv(timeout=left)
            except TimeoutError:
                raise
            except ConnectionClosed as exc:
                self._ws = None
                if self._s.closed:
                    raise EventStreamError("the event stream is closed") from exc
                time.sleep(self._s.retry_delay(exc))
                continue
            event = self._s.read(raw)
            if event is not None:
                self._s.failures = 0
                return event

    def __iter__(self) -> Iterator[AnyEvent]:
        while not self._s.closed:
            try:
                yield self.recv()
            except EventStreamError:
                if self._s.closed:
                    return
                raise


class AsyncEventStream:
    """`async for event in stream`; `await stream.recv(timeout=…)`. Close it (or `async with`)."""

    def __init__(
        self,
        config: ClientConfig,
        op: Operation,
        *,
        references: Sequence[str] | None = None,
        last_event_id: str | None = None,
        reconnect: bool = True,
    ) -> None:
        self._s = _StreamState(config, op, references, last_event_id, reconnect)
        self._ws: AsyncConnection | None = None

    @property
    def last_event_id(self) -> str | None:
        return self._s.last_event_id

    @property
    def connection(self) -> AsyncConnection | None:
        return self._ws

    async def __aenter__(self) -> AsyncEventStream:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._s.closed = True
        if self._ws is not None:
            await self._ws.close()
            self._ws = None

    async def connect(self) -> None:
        while self._ws is None:
            try:
                ws = await async_connect(
                    self._s.url, additional_headers=self._s.headers, open_timeout=self._s.config.timeout
                )
                try:
                    await ws.send(self._s.subscribe_message())
                except BaseException:
                    await ws.close()
                    raise
                self._ws = ws
            except (WebSocketException, OSError, TimeoutError) as exc:
                await asyncio.sleep(self._s.retry_delay(exc))

    async def recv(self, timeout: float | None = None) -> AnyEvent:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._s.closed:
                raise EventStreamError("the event stream is closed")
            await self.connect()
            assert self._ws is not None
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                raw = await asyncio.wait_for(self._ws.recv(), left)
            except asyncio.TimeoutError:
                # Python 3.10's asyncio.TimeoutError is not the builtin TimeoutError yet.
                raise TimeoutError("no event within the timeout") from None
            except ConnectionClosed as exc:
                self._ws = None
                if self._s.closed:
                    raise EventStreamError("the event stream is closed") from exc
                await asyncio.sleep(self._s.retry_delay(exc))
                continue
            event = self._s.read(raw)
            if event is not None:
                self._s.failures = 0
                return event

    async def __aiter__(self) -> AsyncIterator[AnyEvent]:
        while not self._s.closed:
            try:
                yield await self.recv()
            except EventStreamError:
                if self._s.closed:
                    return
                raise
