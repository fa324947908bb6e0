"""The sync and async transports: the same loop over the shared core, one blocking, one awaiting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import httpx
from pydantic import BaseModel

from . import _core
from ._core import ClientConfig, Language, ModelT, Operation
from ._errors import MomoApiError


class SyncTransport:
    def __init__(self, config: ClientConfig, http_client: httpx.Client | None) -> None:
        self.config = config
        self._owns_http = http_client is None
        self.http = http_client or httpx.Client()

    def close(self) -> None:
        if self._owns_http:
            self.http.close()

    def send(
        self,
        op: Operation,
        *,
        path: Mapping[str, Any],
        query: Mapping[str, Any],
        body: BaseModel | Mapping[str, Any] | None,
        idempotency_key: str | None,
        accept_language: Language | None,
        timeout: float | None,
    ) -> httpx.Response:
        prepared = _core.prepare(
            self.config, op, path, query, body, idempotency_key, accept_language, timeout
        )
        policy = self.config.retry
        attempt = 0
        while True:
            try:
                response = self.http.send(_core.to_httpx(prepared, self.http))
            except httpx.TransportError as exc:
                delay = policy.delay_after_error(attempt)
                if delay is None:
                    raise _core.final_error(exc) from exc
            else:
                if response.is_success:
                    return response
                delay = policy.delay_after_status(attempt, response)
                if delay is None:
                    raise MomoApiError.from_response(response)
            time.sleep(delay)
            attempt += 1

    def model(self, op: Operation, model: type[ModelT], **kw: Any) -> ModelT:
        return _core.read_model(self.send(op, **kw), model)

    def none(self, op: Operation, **kw: Any) -> None:
        self.send(op, **kw)

    def bytes(self, op: Operation, **kw: Any) -> bytes:
        return self.send(op, **kw).content


class AsyncTransport:
    def __init__(self, config: ClientConfig, http_client: httpx.AsyncClient | None) -> None:
        self.config = config
        self._owns_http = http_client is None
        self.http = http_client or httpx.AsyncClient()

    async def close(self) -> None:
        if self._owns_http:
            await self.http.aclose()

    async def send(
        self,
        op: Operation,
        *,
        path: Mapping[str, Any],
        query: Mapping[str, Any],
        body: BaseModel | Mapping[str, Any] | None,
        idempotency_key: str | None,
        accept_language: Language | None,
        timeout: float | None,
    ) -> httpx.Response:
        prepared = _core.prepare(
            self.config, op, path, query, body, idempotency_key, accept_language, timeout
        )
        policy = self.config.retry
        attempt = 0
        while True:
            try:
                response = await self.http.send(_core.to_httpx(prepared, self.http))
            except httpx.TransportError as exc:
                delay = policy.delay_after_error(attempt)
                if delay is None:
                    raise _core.final_error(exc) from exc
            else:
                if response.is_success:
                    return response
                delay = policy.delay_after_status(attempt, response)
                if delay is None:
                    raise MomoApiError.from_response(response)
            await asyncio.sleep(delay)
            attempt += 1

    async def model(self, op: Operation, model: type[ModelT], **kw: Any) -> ModelT:
        return _core.read_model(await self.send(op, **kw), model)

    async def none(self, op: Operation, **kw: Any) -> None:
        await self.send(op, **kw)

    async def bytes(self, op: Operation, **kw: Any) -> bytes:
        return (await self.send(op, **kw)).content
