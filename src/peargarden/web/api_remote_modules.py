"""A card's remote modules (issue 45 item 4; ``app/play/remote_modules.py``):

* ``POST /api/cards/{card}/modules`` with ``{"url", "module"}`` — the module a frame of the card's chat
  page asked for (the page asks on its behalf; no frame reaches the API): ``{"url", "code", "deps",
  "type", "sha256", "fetched"}`` from the data folder or fetched once; ``{"ask": {"host", "url",
  "question"}}`` when the user never answered for the host (the page asks, then posts the answer);
  a refused host or a failed fetch is an error (403) with one line; an address of this server itself
  (any loopback address or ``localhost`` on its port) is refused (400) before any question.
* ``GET /api/cards/{card}/remote-hosts`` — ``{"card", "hosts": {host: bool}, "pins": [{"url", "sha256",
  "type"}]}``; ``POST`` with ``{"host", "allowed", "forget"?}`` keeps an answer (``pear tavern set
  host.<host> on|off --card`` is the same for the CLI).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import msgspec
from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.play import HostQuestion, answer_host, card_module, hosts_state
from peargarden.errors import BadInput

from .deps import home_of

router = APIRouter(prefix="/api")


class ModuleBody(BaseModel):
    url: str
    module: bool = True


def _this_server(url: str, request: Request) -> bool:
    """Whether *url* names this server (a loopback or unspecified address, ``localhost``, or the name the
    page used, on the port it is served on): a frame's request must never reach the API through the
    server's own fetch, whatever the user answers for that host."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    if port != (request.url.port or (443 if request.url.scheme == "https" else 80)):
        return False
    host = (parts.hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host == "localhost" or host.endswith(".localhost") or host == (request.url.hostname or "").lower()
    return address.is_loopback or address.is_unspecified or host == (request.url.hostname or "").lower()


@router.post("/cards/{card}/modules")
def card_module_of(request: Request, card: str, body: ModuleBody) -> dict[str, Any]:
    if _this_server(body.url, request):
        raise BadInput(f"不从梨园自己的地址加载：{body.url[:200]}")
    try:
        loaded = card_module(home_of(request), card, body.url, module=body.module)
    except HostQuestion as question:
        return {"ask": {"host": question.host, "url": question.url, "question": question.message}}
    answer: dict[str, Any] = msgspec.to_builtins(loaded)
    return answer


@router.get("/cards/{card}/remote-hosts")
def remote_hosts(request: Request, card: str) -> dict[str, Any]:
    return hosts_state(home_of(request), card)


class HostBody(BaseModel):
    host: str
    allowed: bool
    forget: bool = False


@router.post("/cards/{card}/remote-hosts")
def answer_remote_host(request: Request, card: str, body: HostBody) -> dict[str, Any]:
    answer_host(home_of(request), card, body.host, body.allowed, forget=body.forget)
    return hosts_state(home_of(request), card)
