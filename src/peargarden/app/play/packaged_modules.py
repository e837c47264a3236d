"""Well-known libraries a card's frames get from npm packages instead of a CDN (issue 45 items 1 and 4):
Vue 3, Pinia and async-wait-until, pinned by the repository's ``package-lock.json`` and installed into
``node_modules/`` by ``scripts/setup.sh`` (``npm ci``; nothing of them is in the repository).

TavernHelper's frame template loads Vue from a CDN as the global ``Vue``, and cards' bars import Pinia
and the like from jsdelivr (kai's template: ``testingcf.jsdelivr.net/npm/pinia/+esm``, whose bundle
imports ``/npm/vue@…/+esm`` by absolute path).  Here:

* **Classic**: a frame whose document or script names Vue (or Pinia) gets ``vue.global.prod.js`` as a
  library, like jQuery (``web/frame_libraries.py``): the global ``Vue``.
* **Modules**: a CDN address of one of these packages (jsdelivr's hosts and unpkg; ``+esm``, the
  package root, or the package's ES build) is answered from the package by :func:`packaged_module`,
  before the card's pins and host answers: no question, no network.  The ES module of Vue is a module
  over the frame's global ``Vue`` (one Vue per frame: a store Pinia made reactive is the one the
  bar's ``Vue.createApp`` renders; two copies would not see each other's changes).
* **Bare names**: ``import 'vue'`` / ``'pinia'`` / ``'async-wait-until'`` in a frame's module are read as
  the package's address (:func:`bare_address`), so ``module_text`` makes them dependencies like any
  other: the frame's modules are ``blob:`` modules made at run time, which an import map written into
  the frame before them could not name.
* **Versions**: an address naming a version or a range (``vue@3``, ``pinia@^2.1``, ``vue@3.4.21``) is
  answered from the package only when the installed version satisfies it (npm's rules for exact
  versions, ``^``, ``~``, ``>=``, ``x``, ``*``, ``latest``); anything else (``vue@2``, ``vue@3.4.21``
  when 3.5 is installed, a dist-tag) is the card's remote module as before: asked once per host,
  fetched once, pinned.  No version: the installed one stands for the CDN's latest.

Without ``node_modules`` (npm missing at set-up) none of this answers: the addresses go the remote way,
and the ``vue`` library is a one-line error in the frame (:func:`vue_global`).
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

# The CDN hosts whose npm addresses are read: jsdelivr's (``testingcf`` is the one Chinese cards use)
# and unpkg.
_JSDELIVR = frozenset({"cdn.jsdelivr.net", "fastly.jsdelivr.net", "gcore.jsdelivr.net", "testingcf.jsdelivr.net"})
_UNPKG = frozenset({"unpkg.com"})
# name → the files of the package an address may name for its ES module ("" and "+esm": the package).
_MODULE_FILES = {
    "vue": frozenset({"", "+esm", "dist/vue.esm-browser.js", "dist/vue.esm-browser.prod.js",
                      "dist/vue.runtime.esm-browser.js", "dist/vue.runtime.esm-browser.prod.js"}),
    "pinia": frozenset({"", "+esm", "dist/pinia.esm-browser.js", "dist/pinia.esm-browser.prod.js", "dist/pinia.mjs"}),
    "async-wait-until": frozenset({"", "+esm", "dist/index.esm.js"}),
}  # fmt: skip
# name → the file a frame runs for it (the browser's production ES builds).
_SERVED = {"pinia": "dist/pinia.esm-browser.prod.js", "async-wait-until": "dist/index.esm.js"}
# Vue's classic builds (the global ``Vue``): a ``<script src>`` of one of these is the frame's library.
_VUE_GLOBAL = re.compile(r"vue(?:\.runtime)?\.global(?:\.prod)?(?:\.min)?\.js")
_ADDRESS = re.compile(r"^/(?:npm/)?(?P<name>vue|pinia|async-wait-until)(?:@(?P<range>[^/]*))?(?:/(?P<file>.*))?$")
_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def node_modules() -> Path:
    """Where the packages are: ``PEARGARDEN_NODE_MODULES``, else the checkout's ``node_modules``."""
    named = os.environ.get("PEARGARDEN_NODE_MODULES")
    return Path(named) if named else Path(__file__).resolve().parents[4] / "node_modules"


@cache
def installed_version(name: str) -> str | None:
    """The installed version of package *name*; ``None`` when it is not installed."""
    try:
        found = json.loads((node_modules() / name / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = found.get("version") if isinstance(found, dict) else None
    return version if isinstance(version, str) else None


def _triple(text: str) -> tuple[int, int, int] | None:
    found = _VERSION.match(text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def _one(version: tuple[int, int, int], part: str) -> bool:
    """*version* satisfies one comparator of a range (``^1.2``, ``~1.2.3``, ``>=1``, ``1.x``, ``1.2.3``)."""
    for op in (">=", "<=", ">", "<", "^", "~", "="):
        if part.startswith(op):
            rest = part[len(op) :].lstrip("v")
            break
    else:
        op, rest = "", part.lstrip("v")
    pieces = [p for p in rest.split(".") if p not in ("", "x", "X", "*")]
    if not all(p.isdigit() for p in pieces) or len(pieces) > 3:
        return False  # a pre-release, a tag: not read here
    wanted = [int(p) for p in pieces]
    low = tuple(wanted + [0] * (3 - len(wanted)))
    if op in (">=", ">", "<=", "<"):
        if op == ">":
            return version > low
        if op == "<":
            return version < low
        return version >= low if op == ">=" else version <= low
    if op == "^":  # the first non-zero part stays
        fixed = next((i for i, n in enumerate(wanted) if n), len(wanted) - 1) if wanted else -1
        return version >= low and list(version[: fixed + 1]) == wanted[: fixed + 1]
    if op == "~":  # the minor stays when given, else the major
        keep = 2 if len(wanted) >= 2 else len(wanted)
        return version >= low and list(version[:keep]) == wanted[:keep]
    return list(version[: len(wanted)]) == wanted  # exact, or a prefix (``3``, ``3.5``, ``3.x``)


def satisfies(version: str, wanted: str | None) -> bool:
    """*version* (installed) satisfies the range *wanted* of an address; none or ``latest``: yes."""
    have = _triple(version)
    text = (wanted or "").strip()
    if have is None:
        return False
    if text in ("", "latest", "*", "x"):
        return True
    return any(all(_one(have, part) for part in alternative.split()) for alternative in text.split("||"))


def _address(url: str) -> tuple[str, str | None, str] | None:
    """(package, range, file) of a CDN address of a package here; ``None`` for any other."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme.lower() not in ("http", "https") or host not in _JSDELIVR | _UNPKG:
        return None
    path = parts.path
    if host in _JSDELIVR and not path.startswith("/npm/"):
        return None
    found = _ADDRESS.match(path)
    if not found:
        return None
    return found["name"], found["range"], (found["file"] or "").strip("/")


def packaged(url: str) -> str | None:
    """The installed package a CDN address asks for when its version is satisfied, else ``None``."""
    found = _address(url)
    if found is None:
        return None
    name, wanted, _file = found
    version = installed_version(name)
    return name if version is not None and satisfies(version, wanted) else None


def classic_library(url: str) -> str | None:
    """``"vue"`` for a ``<script src>`` of Vue's classic build (its file on any CDN, or the package's
    root on jsdelivr / unpkg, which serve that build) in a version the package satisfies."""
    path = urlsplit(url.strip()).path
    version = installed_version("vue")
    if version is None:
        return None
    if _VUE_GLOBAL.fullmatch(path.rsplit("/", 1)[-1].lower()):
        pinned = re.search(r"/vue@([^/]+)/|/libs/vue/([^/]+)/", path)
        return "vue" if satisfies(version, (pinned[1] or pinned[2]) if pinned else None) else None
    found = _address(url)
    return "vue" if found and found[0] == "vue" and not found[2] and packaged(url) else None


# A document or script that uses Vue or Pinia (the global, an import, an address): it gets the global.
_MENTIONS = re.compile(r"\b(?:Vue|vue|pinia|Pinia)\b")


def mentions_packages(text: str) -> bool:
    """*text* (a bar's document, a script) uses Vue or Pinia: its frame gets the global ``Vue``."""
    return _MENTIONS.search(text) is not None


def bare_address(name: str) -> str | None:
    """The address a bare import (``'vue'``) stands for, when that package is installed."""
    version = installed_version(name) if name in _MODULE_FILES else None
    return f"https://cdn.jsdelivr.net/npm/{name}@{version}/+esm" if version else None


@cache
def _vue_names() -> tuple[str, ...]:
    """What Vue's ES build exports (its last ``export{… as name, …}``)."""
    text = (node_modules() / "vue" / "dist" / "vue.esm-browser.prod.js").read_text(encoding="utf-8")
    block = text[text.rindex("export{") + len("export{") : text.rindex("}")]
    return tuple(item.split(" as ")[-1].strip() for item in block.split(",") if item.strip())


def _vue_module() -> str:
    names = ", ".join(_vue_names())
    return (
        "// Vue's ES module in a card's frame: the frame's global Vue (one Vue, one reactivity).\n"
        "const Vue = globalThis.Vue;\n"
        "if (!Vue) throw new Error('Vue 没有载入这个框（the frame has no global Vue）');\n"
        f"export const {{ {names} }} = Vue;\n"
    )


def packaged_module(url: str) -> str | None:
    """The ES module text a frame runs for *url* when a package here answers it (see the module's
    docstring); ``None``: not one of ours (or not installed, or another version): the remote way."""
    name = packaged(url)
    found = _address(url)
    if name is None or found is None or found[2] not in _MODULE_FILES[name]:
        return None
    if name == "vue":
        return _vue_module()
    return (node_modules() / name / _SERVED[name]).read_text(encoding="utf-8")


def vue_global() -> str:
    """The text of the frame library ``vue``: Vue's classic production build, or a line saying it is
    not installed."""
    try:
        return (node_modules() / "vue" / "dist" / "vue.global.prod.js").read_text(encoding="utf-8")
    except OSError:
        return "throw new Error('Vue 没有安装（npm 包：运行 bash scripts/setup.sh）');"


__all__ = [
    "bare_address",
    "classic_library",
    "installed_version",
    "mentions_packages",
    "node_modules",
    "packaged",
    "packaged_module",
    "satisfies",
    "vue_global",
]
