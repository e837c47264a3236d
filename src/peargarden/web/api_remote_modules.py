"""A card's remote modules (issue 45 item 4; ``app/play/remote_modules.py``):

* ``POST /api/cards/{card}/modules`` with ``{"url", "module"}`` — the module a frame of the card's chat
  page asked for (the page asks on its behalf; no frame reaches the API): ``{"url", "code", "deps",
  "type", "sha256", "fetched"}`` from the data folder or fetched once; ``{"ask": {"host", "url",
  "question"}}`` when the user never answered for the host (the page asks, then posts the answer);
  a refused host or a failed fetch is an error (403) with one line.
* ``GET /api/cards/{card}/remote-hosts`` — ``{"card", "hosts": {host: bool}, "pins": [{"url", "sha256",
  "type"}]}``; ``POST`` with ``{"host", "allowed", "forget"?}`` keeps an answer (``pear tavern set
  host.<host> on|off --card`` is the same for the CLI).
"""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter, Request
from pydantic import BaseModel

from peargarden.app.play import HostQuestion, answer_host, card_module, hosts_state

from .deps import home_of

router = APIRouter(prefix="/api")


class ModuleBody(BaseModel):
    url: str
    module: bool = True


@router.post("/cards/{card}/modules")
def card_module_of(request: Request, card: str, body: ModuleBody) -> dict[str, Any]:
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
