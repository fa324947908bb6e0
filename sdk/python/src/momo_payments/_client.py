"""The two clients: `MomoPayments` (blocking, httpx.Client) and `AsyncMomoPayments` (httpx.AsyncClient).

Credentials, base URL, timeout, retries and language are set once here; every resource method of
the client (generated in _resources.py) sends through the same transport.
"""

from __future__ import annotations

import os
from types import TracebackType

import httpx

from ._core import ClientConfig, Language, RetryPolicy
from ._resources import _AsyncResources, _Resources
from ._transport import AsyncTransport, SyncTransport

DEFAULT_TIMEOUT = 30.0


def _config(
    api_key: str | None,
    api_client: str | None,
    base_url: str | None,
    timeout: float,
    max_retries: int,
    retry: RetryPolicy | None,
    accept_language: Language | None,
) -> ClientConfig:
    key = api_key or os.environ.get("MOMO_API_KEY")
    client = api_client or os.environ.get("MOMO_API_CLIENT")
    url = base_url or os.environ.get("MOMO_BASE_URL")
    if not key or not client:
        raise ValueError("give api_key and api_client (or set MOMO_API_KEY and MOMO_API_CLIENT)")
    if not url:
        raise ValueError("give base_url (or set MOMO_BASE_URL), e.g. https://api.example.com")
    policy = retry or RetryPolicy(max_retries=max_retries)
    return ClientConfig(
        api_key=key,
        api_client=client,
        base_url=url.rstrip("/"),
        timeout=timeout,
        retry=policy,
        accept_language=accept_language,
    )


class MomoPayments(_Resources):
    """The blocking client. `with MomoPayments(...) as client:` closes its connections at the end.

    Test keys (mk_test_…) act on the sandbox, live keys on real money: the mode is the key's.
    """

    def __init__(
        self,
        api_key: str | None = None,
        api_client: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        accept_language: Language | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.config = _config(api_key, api_client, base_url, timeout, max_retries, retry, accept_language)
        self._transport = SyncTransport(self.config, http_client)
        self._bind(self._transport)

    @property
    def livemode(self) -> bool:
        return self.config.livemode

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> MomoPayments:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class AsyncMomoPayments(_AsyncResources):
    """The asyncio client: the same resources and methods as MomoPayments, awaited."""

    def __init__(
        self,
        api_key: str | None = None,
        api_client: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        accept_language: Language | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.config = _config(api_key, api_client, base_url, timeout, max_retries, retry, accept_language)
        self._transport = AsyncTransport(self.config, http_client)
        self._bind(self._transport)

    @property
    def livemode(self) -> bool:
        return self.config.livemode

    async def close(self) -> None:
        await self._transport.close()

    async def __aenter__(self) -> AsyncMomoPayments:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
