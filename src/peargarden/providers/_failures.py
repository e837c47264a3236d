"""Classify what went wrong talking to an endpoint: retry it, or tell the person in one line."""

from __future__ import annotations

import email.utils
import time
from typing import Any
from urllib.parse import urlsplit

import msgspec

from peargarden.errors import ProviderError

from ._http import EndpointError, StatusError
from .wire import ConnectError, ConnectTimeout, TimeoutException, TransportError

_RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


class Failure(msgspec.Struct, frozen=True):
    message: str
    retryable: bool
    retry_after: float | None = None  # seconds the server asked us to wait
    hint: str = ""  # a command to run (peargarden.errors.PearError.hint)
    fix: str = ""  # the setting that fixes it (peargarden.errors.FIXES)


class Endpoint(msgspec.Struct, frozen=True):
    """What an error message needs to name: where, which model, which key variable."""

    base_url: str
    model: str = ""
    api_key_env: str | None = None

    @property
    def host(self) -> str:
        parts = urlsplit(self.base_url)
        return parts.netloc or self.base_url


def failure_error(failure: Failure, message: str) -> ProviderError:
    """The error a failure that is not retried ends in: *message* (the failure's, said with the tries
    made) with the failure's hint and fix."""
    return ProviderError(message, hint=failure.hint, fix=failure.fix)


def classify(
    error: BaseException, where: Endpoint, timeout: float | None = None, connect: float | None = None
) -> Failure:
    """*timeout*: the limit a read waited for; *connect*: the connect limit (named when that ran out)."""
    if isinstance(error, StatusError):
        return _from_status(error.status_code, _server_message(error.body, error.message), error.headers, where)
    if _caused_by(error, ConnectTimeout):  # the handshake never finished: not a silent server
        limit = f" {connect:g} 秒内" if connect else ""
        text = f"无法连接 {where.base_url}：{limit}没有连上（connect timeout）"
        return Failure(text, retryable=True, fix="connection")
    if isinstance(error, TimeoutException):
        limit = f" {timeout:g} 秒内" if timeout else ""
        return Failure(f"{where.host}{limit}没有回应（timed out）", retryable=True)
    if isinstance(error, TransportError):
        cause = _root_cause(error)
        if _is_connect_error(error):
            return Failure(f"无法连接 {where.base_url}（cannot connect）：{cause}", retryable=True, fix="connection")
        return Failure(f"与 {where.host} 的连接中断（connection failed）：{cause}", retryable=True)
    if isinstance(error, EndpointError):
        # An ``error`` object inside the SSE stream (or in a 200 answer).
        return Failure(
            f"{where.host} 报错（stream error）：{_one_line(_server_message(error.body, error.message))}",
            retryable=False,
        )
    return Failure(
        f"与 {where.host} 通信出错（unexpected failure）：{_one_line(str(error)) or type(error).__name__}",
        retryable=False,
    )


def _from_status(code: int, detail: str, headers: Any, where: Endpoint) -> Failure:
    detail = _one_line(detail)
    suffix = f"：{detail}" if detail else ""
    if code == 401:
        key = f"${where.api_key_env}" if where.api_key_env else "API 密钥"
        return Failure(f"{where.host} 拒绝了 API 密钥（401），请检查 {key}{suffix}", retryable=False, fix="connection")
    if code == 403:
        return Failure(f"{where.host} 拒绝访问（403 forbidden）{suffix}", retryable=False, fix="connection")
    if code == 404:
        return Failure(
            f"{where.base_url} 找不到（404 not found）：模型名 {where.model!r} 对吗？地址是 /v1 端点吗？{suffix}",
            retryable=False,
            hint="`pear models` 可列出可用模型",
            fix="model",
        )
    if code in _RETRY_STATUSES:
        label = "限流（429 rate limited）" if code == 429 else f"服务器错误（{code}）"
        return Failure(f"{where.host} {label}{suffix}", retryable=True, retry_after=retry_after(headers))
    if 500 <= code < 600:
        return Failure(f"{where.host} 服务器错误（{code}）{suffix}", retryable=True, retry_after=retry_after(headers))
    return Failure(f"{where.host} 拒绝了请求（{code}）{suffix}", retryable=False)


def retry_after(headers: Any, now: float | None = None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (number or HTTP date), if present."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _server_message(body: object, fallback: str) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
        if isinstance(error, str):
            return error
    if isinstance(body, str) and body.strip():
        return body
    return fallback


def _caused_by(error: BaseException, kind: type[BaseException] | tuple[type[BaseException], ...]) -> bool:
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__
    return False


def _is_connect_error(error: BaseException) -> bool:
    return _caused_by(error, (ConnectError, ConnectionRefusedError))


def _root_cause(error: BaseException) -> str:
    seen: BaseException = error
    while seen.__cause__ is not None:
        seen = seen.__cause__
    text = _one_line(str(seen)) or type(seen).__name__
    return text


def _one_line(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
