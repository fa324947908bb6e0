"""The request core shared by the sync and the async client.

Everything but the I/O lives here (building a request, the retry decision, reading the answer), so
the two clients differ only in `send` and `sleep` and cannot drift apart.
"""

from __future__ import annotations

import base64
import random
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from ._errors import MomoConnectionError, MomoTimeoutError, parse_retry_after
from ._version import __version__

ModelT = TypeVar("ModelT", bound=BaseModel)
Language = Literal["en", "fr"]

#: Statuses retried with the same idempotency key; any other non-2xx is final (a 4xx never heals)...
RETRY_STATUSES = frozenset({429, 503})
#: ...but for this 409, answered (with Retry-After: 1) while the first request with the same key is still
#: running or its answer is being stored: sent again, the request gets that answer. Any other 409 (a
#: duplicate refund, a key reused with another body) is final.
RETRY_CONFLICT_CODE = "REQUEST_IN_PROGRESS"


def is_retryable(response: httpx.Response) -> bool:
    """429, 503 and 409 REQUEST_IN_PROGRESS are retried with the same idempotency key."""
    if response.status_code in RETRY_STATUSES:
        return True
    if response.status_code != 409:
        return False
    try:
        problem = response.json()
    except ValueError:
        return False
    return isinstance(problem, dict) and problem.get("code") == RETRY_CONFLICT_CODE


@dataclass(frozen=True)
class Operation:
    """One operation of the OpenAPI document (generated table: _operations.py)."""

    operation_id: str
    method: str
    path: str
    path_params: tuple[str, ...] = ()
    query_params: tuple[str, ...] = ()
    has_body: bool = False


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; Retry-After (seconds or date) wins when the API sends it."""

    max_retries: int = 3
    initial_delay: float = 0.5
    max_delay: float = 8.0
    #: A Retry-After longer than this is not waited for: the error goes to the caller.
    max_retry_after: float = 60.0

    def backoff(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * (2.0**attempt))
        # "Equal jitter": at least half the delay, so clients that failed together spread out.
        return base / 2 + random.uniform(0, base / 2)

    def delay_after_status(self, attempt: int, response: httpx.Response) -> float | None:
        if attempt >= self.max_retries or not is_retryable(response):
            return None
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if retry_after is None:
            return self.backoff(attempt)
        return retry_after if retry_after <= self.max_retry_after else None

    def delay_after_error(self, attempt: int) -> float | None:
        return self.backoff(attempt) if attempt < self.max_retries else None


@dataclass(frozen=True)
class ClientConfig:
    api_key: str
    api_client: str
    base_url: str
    timeout: float
    retry: RetryPolicy
    accept_language: Language | None
    user_agent: str = field(default=f"momo-payments-python/{__version__}")

    @property
    def authorization(self) -> str:
        token = base64.b64encode(f"{self.api_key}:{self.api_client}".encode()).decode()
        return f"Basic {token}"

    @property
    def livemode(self) -> bool:
        return not self.api_key.startswith("mk_test_")


@dataclass(frozen=True)
class PreparedRequest:
    method: str
    url: str
    params: dict[str, str]
    headers: dict[str, str]
    content: bytes | None
    timeout: float


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def body_json(body: BaseModel | Mapping[str, Any] | None) -> bytes | None:
    if body is None:
        return None
    if isinstance(body, BaseModel):
        return body.model_dump_json(by_alias=True, exclude_none=True).encode()
    import json

    return json.dumps(dict(body), default=_query_value, ensure_ascii=False).encode()


def prepare(
    config: ClientConfig,
    op: Operation,
    path: Mapping[str, Any],
    query: Mapping[str, Any],
    body: BaseModel | Mapping[str, Any] | None,
    idempotency_key: str | None,
    accept_language: Language | None,
    timeout: float | None,
) -> PreparedRequest:
    """Builds the request once; its idempotency key is then reused by every retry of it."""
    url_path = op.path
    for name in op.path_params:
        url_path = url_path.replace("{" + name + "}", quote(str(path[name]), safe=""))
    headers = {
        "Authorization": config.authorization,
        "Accept": "application/json, application/problem+json",
        "User-Agent": config.user_agent,
    }
    language = accept_language or config.accept_language
    if language:
        headers["Accept-Language"] = language
    if op.method == "POST":
        headers["X-Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    content = body_json(body) if op.has_body else None
    if op.has_body and content is None:
        content = b"{}"
    if content is not None:
        headers["Content-Type"] = "application/json"
    params: dict[str, str] = {}
    for key, value in query.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            # Deep-object style (metadata[orderId]=1001), as the API reads its metadata filter.
            params.update({f"{key}[{sub}]": _query_value(v) for sub, v in value.items() if v is not None})
        else:
            params[key] = _query_value(value)
    return PreparedRequest(
        method=op.method,
        url=config.base_url.rstrip("/") + url_path,
        params=params,
        headers=headers,
        content=content,
        timeout=config.timeout if timeout is None else timeout,
    )


def to_httpx(prepared: PreparedRequest, http: httpx.Client | httpx.AsyncClient) -> httpx.Request:
    return http.build_request(
        prepared.method,
        prepared.url,
        params=prepared.params,
        headers=prepared.headers,
        content=prepared.content,
        timeout=prepared.timeout,
    )


def final_error(exc: httpx.TransportError) -> MomoConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return MomoTimeoutError(f"the API did not answer in time ({type(exc).__name__})")
    return MomoConnectionError(f"the API could not be reached ({type(exc).__name__})")


def read_model(response: httpx.Response, model: type[ModelT]) -> ModelT:
    return model.model_validate_json(response.content)


def statement_link(
    statement: str | Any, expires: int | None, signature: str | None
) -> tuple[str, int | None, str | None]:
    """The id and signed-link parameters of a statement download, taken from a ready Statement."""
    if isinstance(statement, str):
        return statement, expires, signature
    from urllib.parse import parse_qs, urlsplit

    download = getattr(statement, "download", None)
    if download is None:
        raise ValueError("the statement is not ready yet (no download link): read it again later")
    query = parse_qs(urlsplit(download.url).query)
    return (
        str(statement.id),
        int(query["expires"][0]) if expires is None else expires,
        query["signature"][0] if signature is None else signature,
    )
