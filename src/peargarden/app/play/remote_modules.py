"""A remote module for a card's frame: from the data folder when pinned, fetched once when the user
allowed its host for the card, refused with one line otherwise (issue 45 item 4; the files are
``workspace/remote_modules.py``'s).

The frame gets an ES module's text with each import of another address (``from "/npm/vue@3/+esm"``,
``import "./x.js"``, ``import("https://…")``) turned into a marker, ``__pear_dep_<n>__``, and the
addresses in order (resolved against the module's own): it loads those first, each as a module of its
own, and puts their ``blob:`` addresses in place of the markers — jsdelivr's ``+esm`` bundles import
their dependencies by absolute path, which a ``blob:`` module could not resolve.  A bare name of a
package installed here (``import "vue"``) is that package's address; any other bare name is left as
written (the module fails with the browser's line).  The packages' own CDN addresses are answered from
``node_modules`` before any pin or question (``packaged_modules.py``).

A host that was never answered raises :class:`HostQuestion` (the fronts ask, once); ``no`` raises
:class:`RemoteRefused`.  Fetching is HTTP GET with a time limit and a size limit, redirects followed on
the same host or a host the user allowed for the card.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

import msgspec

from peargarden.errors import BadInput, PearError
from peargarden.workspace.cards import CardFolder, open_card
from peargarden.workspace.home import Home
from peargarden.workspace.remote_modules import (
    ModuleStore,
    Pin,
    check_host,
    forget_pins,
    host_allowance,
    host_answers,
    host_of,
    pin,
    pins,
    set_host_allowance,
)

from .packaged_modules import bare_address, packaged_module

MAX_MODULE_BYTES = 8 * 1024 * 1024
FETCH_SECONDS = 20.0
MAX_REDIRECTS = 5
MAX_DEPENDENCIES = 200

# An import's address: ``from '…'`` (imports and re-exports), ``import '…'`` (for its effects),
# ``import('…')``.  Only addresses that are URLs or paths are rewritten.
_SPECIFIER = re.compile(
    r"""(?P<lead>\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)(?P<q>['"])(?P<spec>[^'"\n]{1,2000})(?P=q)"""
)
_REWRITTEN = re.compile(r"^(?:https?://|/|\./|\.\./)")

#: ``fetch(url) -> (bytes, content type, final url)``: the HTTP GET (tests pass their own to count).
Fetch = Callable[[str], tuple[bytes, str, str]]


class HostQuestion(PearError):
    """The user never said whether the card may load from this host: a front asks, once."""

    http_status = 409

    def __init__(self, card: str, host: str, url: str) -> None:
        super().__init__(host_question(card, host, url))
        self.card = card
        self.host = host
        self.url = url


class RemoteRefused(BadInput):
    """The card may not load from this host (the user said no), or the fetch failed."""

    http_status = 403


def host_question(card: str, host: str, url: str) -> str:
    """The one question (per card and host) a front asks."""
    return (
        f"卡「{card}」要从 {host} 加载代码（{url[:160]}）。允许吗？"
        "允许后只下载一次，保存在数据文件夹里，以后离线也用同一份；不允许就不加载。"
    )


class Loaded(msgspec.Struct, frozen=True):
    """A module as a frame gets it: its text (imports of other addresses as markers), those addresses,
    the content type, the bytes' sha256, and whether this call fetched it."""

    url: str
    code: str
    deps: list[str]
    type: str
    sha256: str
    fetched: bool


def module_text(text: str, url: str) -> tuple[str, list[str]]:
    """*text* (a module served from *url*) with each import of a URL or a path as a marker, and the
    absolute addresses of the markers in order (one per distinct address)."""
    deps: list[str] = []

    def one(match: re.Match[str]) -> str:
        spec = match["spec"]
        bare = None if _REWRITTEN.match(spec) else bare_address(spec)
        if bare is None and not _REWRITTEN.match(spec):
            return match.group(0)
        target = bare or urljoin(url, spec)
        if target not in deps:
            if len(deps) >= MAX_DEPENDENCIES:
                raise RemoteRefused(f"{url}: 依赖太多（超过 {MAX_DEPENDENCIES} 个）")
            deps.append(target)
        return f"{match['lead']}{match['q']}__pear_dep_{deps.index(target)}__{match['q']}"

    return _SPECIFIER.sub(one, text), deps


def http_fetch(allowed: Callable[[str], bool]) -> Fetch:
    """The real GET: redirects followed only to hosts *allowed* says yes to, bounded in time and size."""

    def fetch(url: str) -> tuple[bytes, str, str]:
        # The network stack (http.client, ssl), only when something is fetched.
        from peargarden.providers.wire import REDIRECT_STATUSES, Client, HTTPError, Timeout

        current = url
        client = Client(Timeout(FETCH_SECONDS, connect=FETCH_SECONDS), follow_redirects=False)
        try:
            for _ in range(MAX_REDIRECTS + 1):
                answer = client.request("GET", current, headers={"Accept": "*/*"})
                try:
                    location = answer.headers.get("location")
                    if answer.status_code in REDIRECT_STATUSES and location:
                        target = urljoin(current, location)
                        if not allowed(host_of(target)):
                            raise RemoteRefused(f"{url}: 转到了没有允许的主机 {host_of(target)}，没有加载")
                        current = target
                        continue
                    if answer.status_code != 200:
                        raise RemoteRefused(f"{url}: 下载失败（HTTP {answer.status_code}）")
                    body = bytearray()
                    for chunk in answer.iter_bytes():
                        body += chunk
                        if len(body) > MAX_MODULE_BYTES:
                            raise RemoteRefused(f"{url}: 太大（超过 {MAX_MODULE_BYTES // 1024 // 1024} MB），没有加载")
                    kind = (answer.headers.get("content-type") or "").split(";")[0].strip().lower()
                    return bytes(body), kind, current
                finally:
                    answer.close()
        except HTTPError as error:
            raise RemoteRefused(f"{url}: 下载失败（{type(error).__name__}）") from None
        finally:
            client.close()
        raise RemoteRefused(f"{url}: 转向太多次（超过 {MAX_REDIRECTS} 次）")

    return fetch


def load_module(folder: CardFolder, url: str, fetch: Fetch | None = None, *, module: bool = True) -> Loaded:
    """The module at *url* for *folder*'s frames (see the module's docstring); with *module* false (a
    classic ``<script src>``, a style sheet) its text as served, no imports read."""
    served = packaged_module(url) if module else None
    if served is not None:  # a well-known library from its package: no question, no network, no pin
        body = served.encode("utf-8")
        return _loaded(url, body, Pin(hashlib.sha256(body).hexdigest(), "text/javascript"), fetched=False, module=True)
    host = host_of(url)
    store = ModuleStore(folder.home)
    found = pins(folder).get(url)
    if found is not None:
        data = store.get(found.sha256)
        if data is not None:
            return _loaded(url, data, found, fetched=False, module=module)
        # The bytes are gone from the data folder: fetched again below, only if still allowed.
    allowance = host_allowance(folder, host)
    name = folder.folder
    if allowance is None:
        raise HostQuestion(name, host, url)
    if allowance is False:
        raise RemoteRefused(f"卡「{name}」不从 {host} 加载代码（已设为不允许）：{url[:200]}")
    getter = fetch or http_fetch(lambda other: other == host or host_allowance(folder, other) is True)
    data, kind, _final = getter(url)
    if found is not None and store.put(data) != found.sha256:
        raise RemoteRefused(f"{url}: 重新下载的内容和钉住的不一样（sha256 {found.sha256[:12]}…），不会运行")
    fresh = Pin(store.put(data), kind)
    pin(folder, url, fresh)
    return _loaded(url, data, fresh, fetched=True, module=module)


def _loaded(url: str, data: bytes, found: Pin, *, fetched: bool, module: bool) -> Loaded:
    text = data.decode("utf-8", errors="replace")
    code, deps = module_text(text, url) if module else (text, [])
    return Loaded(url, code, deps, found.type, found.sha256, fetched)


def card_module(home: Home, card: str, url: str, *, module: bool = True, fetch: Fetch | None = None) -> Loaded:
    """:func:`load_module` for the card called *card*."""
    return load_module(open_card(home, card), url, fetch, module=module)


def hosts_state(home: Home, card: str) -> dict[str, Any]:
    """``{"card", "hosts": {host: bool}, "pins": [{"url", "sha256", "type"}]}``: the card's answers and
    what it plays from the data folder."""
    folder = open_card(home, card)
    found = [{"url": url, "sha256": p.sha256, "type": p.type} for url, p in sorted(pins(folder).items())]
    return {"card": folder.folder, "hosts": host_answers(folder), "pins": found}


def set_host(home: Home, card: str, host: str, value: str) -> tuple[str, bool, int]:
    """``pear tavern set host.<host> on|off|forget --card``: the answer kept (``forget``: no, and the
    card's pins of the host dropped); (the host as kept, the answer, how many pins were dropped)."""
    folder = open_card(home, card)
    if value.strip().lower() == "forget":
        kept = set_host_allowance(folder, check_host(host), False)
        return kept, False, forget_pins(folder, kept)
    from peargarden.tavern.controls import parse_on_off

    allowed = parse_on_off(f"host.{host}", value)
    return set_host_allowance(folder, check_host(host), allowed), allowed, 0


def answer_host(home: Home, card: str, host: str, allowed: bool, *, forget: bool = False) -> str:
    """Keep the answer for *host* (and with *forget*, drop the card's pins of it); the host as kept."""
    folder = open_card(home, card)
    kept = set_host_allowance(folder, check_host(host), allowed)
    if forget:
        forget_pins(folder, kept)
    return kept


__all__ = [
    "Fetch",
    "HostQuestion",
    "Loaded",
    "RemoteRefused",
    "answer_host",
    "card_module",
    "host_question",
    "hosts_state",
    "http_fetch",
    "load_module",
    "module_text",
    "set_host",
]
