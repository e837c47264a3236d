"""Remote modules a card's frames load (issue 45 item 4): which hosts the user allowed for a card, which
address plays which bytes (the pin), and the bytes themselves, kept once in the data folder.

Cards import code from CDNs (``import 'https://testingcf.jsdelivr.net/gh/…/index.js'``, ``pinia/+esm``,
a ``<script src>`` of three.js).  SillyTavern fetches them on every page load; here a module is fetched
once, after the user allowed its host *for that card* (one question, as for the card's regex scripts),
and then played from the data folder, offline, the same bytes next week:

* ``卡.json`` ``"remote_hosts": {"cdn.jsdelivr.net": true, "evil.example": false}`` — the answers
  (absent: never asked);
* ``卡.json`` ``"remote_modules": {"https://…": {"sha256": "…", "type": "text/javascript"}}`` — the pins:
  a pinned address is never fetched again (a host taken back stops new fetches, not pinned bytes: the
  user said yes when they were fetched; ``forget_pins`` drops them);
* ``modules/<sha256[:2]>/<sha256>`` in the data folder — the bytes, content-addressed (two cards that
  load the same file keep it once), written atomically, checked against their name when read.

Files only; the fetching is ``app/play/remote_modules.py``'s.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from peargarden.errors import BadInput, PearError

from . import atomic
from .cards import CardFolder
from .home import Home

HOSTS_KEY = "remote_hosts"
PINS_KEY = "remote_modules"
MODULES_DIR = "modules"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_HOST = re.compile(r"^[a-z0-9.-]+(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$")
# The answers and pins are read, changed and written back in 卡.json; a frame's fetches come together
# (the server answers each in a thread of its own), and two writers would each drop the other's pin.
_SETTINGS_WRITE = threading.Lock()


class Pin(msgspec.Struct, frozen=True):
    """What an address plays: the bytes' sha256 and the content type they were served with."""

    sha256: str
    type: str


def host_of(url: str) -> str:
    """The host (with its port, when the address gives one) a remote address is fetched from;
    ``BadInput`` for anything but an ``http(s)://`` address."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rsplit("@", 1)[-1].lower()
    except ValueError:
        host = ""
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not host:
        raise BadInput(f"不是网络地址：{url[:200]}（只有 http:// 和 https:// 的模块能加载）")
    return host


def check_host(host: str) -> str:
    """*host* as ``卡.json`` keeps it (lower case), or ``BadInput`` naming it."""
    clean = host.strip().lower()
    if not _HOST.match(clean):
        raise BadInput(f"不是主机名：{host[:200]}（例如 cdn.jsdelivr.net）")
    return clean


def _table(folder: CardFolder, key: str) -> dict[str, Any]:
    value = folder.settings().get(key)
    return dict(value) if isinstance(value, dict) else {}


def host_answers(folder: CardFolder) -> dict[str, bool]:
    """Every host the user answered for the card."""
    return {host: value for host, value in _table(folder, HOSTS_KEY).items() if isinstance(value, bool)}


def host_allowance(folder: CardFolder, host: str) -> bool | None:
    """True / False as the user answered for *host*; None when never asked."""
    return host_answers(folder).get(host.lower())


def set_host_allowance(folder: CardFolder, host: str, allowed: bool) -> str:
    """Keep the answer for *host* in ``卡.json``; the host as kept."""
    clean = check_host(host)
    with _SETTINGS_WRITE:
        settings = folder.settings()
        settings[HOSTS_KEY] = {**_table(folder, HOSTS_KEY), clean: allowed}
        folder.write_settings(settings)
    return clean


def pins(folder: CardFolder) -> dict[str, Pin]:
    """Every address the card plays from the data folder (malformed entries left out)."""
    out = {}
    for url, value in _table(folder, PINS_KEY).items():
        if isinstance(value, dict) and _SHA256.match(str(value.get("sha256", ""))):
            out[url] = Pin(str(value["sha256"]), str(value.get("type") or ""))
    return out


def pin(folder: CardFolder, url: str, found: Pin) -> None:
    with _SETTINGS_WRITE:
        settings = folder.settings()
        settings[PINS_KEY] = {**_table(folder, PINS_KEY), url: msgspec.to_builtins(found)}
        folder.write_settings(settings)


def forget_pins(folder: CardFolder, host: str) -> int:
    """Drop the card's pins of *host* (the next load fetches again, if the host is allowed); how many."""
    with _SETTINGS_WRITE:
        settings = folder.settings()
        table = _table(folder, PINS_KEY)
        kept = {url: value for url, value in table.items() if _safe_host(url) != host}
        if len(kept) != len(table):
            settings[PINS_KEY] = kept
            folder.write_settings(settings)
    return len(table) - len(kept)


def _safe_host(url: str) -> str | None:
    try:
        return host_of(url)
    except BadInput:
        return None


def pinned_sources(folder: CardFolder) -> Callable[[str], str | None]:
    """The text of a module the card plays from the data folder, by its address (None: not pinned,
    its bytes gone, or changed on disk — then it is not run, and the page says why when it loads it)."""
    table = pins(folder)
    store = ModuleStore(folder.home)

    def source(url: str) -> str | None:
        found = table.get(url)
        if found is None:
            return None
        try:
            data = store.get(found.sha256)
        except PearError:
            return None
        return None if data is None else data.decode("utf-8", errors="replace")

    return source


class ModuleStore(msgspec.Struct, frozen=True):
    """The data folder's content-addressed bytes of remote modules."""

    home: Home

    @property
    def root(self) -> Path:
        return self.home.root / MODULES_DIR

    def path(self, sha256: str) -> Path:
        if not _SHA256.match(sha256):
            raise BadInput(f"不是 sha256：{sha256[:80]}")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Keep *data* (once); its sha256."""
        digest = hashlib.sha256(data).hexdigest()
        path = self.path(digest)
        if not path.exists():
            atomic.ensure_dir(path.parent)
            atomic.write_bytes(path, data)
        return digest

    def get(self, sha256: str) -> bytes | None:
        """The bytes named *sha256*; None when absent.  Bytes that are not what their name says (the
        file was changed on disk) are an error naming the file, never played."""
        path = self.path(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise PearError(f"无法读取模块：{exc.strerror or exc}", path=path) from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise PearError("模块文件被改动过（内容与它的 sha256 不符），不会运行；删掉它会重新下载", path=path)
        return data


__all__ = [
    "HOSTS_KEY",
    "MODULES_DIR",
    "PINS_KEY",
    "ModuleStore",
    "Pin",
    "check_host",
    "forget_pins",
    "host_allowance",
    "host_answers",
    "host_of",
    "pin",
    "pinned_sources",
    "pins",
    "set_host_allowance",
]
