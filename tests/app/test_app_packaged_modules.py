"""Well-known libraries from npm packages (issue 45 item 1, ``app/play/packaged_modules.py``): the CDN
addresses kai's template bar imports (Pinia and async-wait-until from ``testingcf.jsdelivr.net``, whose
Pinia imports Vue) are answered from ``node_modules`` with no host question and no fetch; a version the
package does not satisfy goes the remote way (one question); a bare ``import 'vue'`` is the package's
address; Vue's ES module is the frame's global ``Vue``."""

from __future__ import annotations

from pathlib import Path

import pytest

from peargarden.app.play.packaged_modules import (
    classic_library,
    installed_version,
    node_modules,
    packaged_module,
    satisfies,
    vue_global,
)
from peargarden.app.play.remote_modules import HostQuestion, card_module, hosts_state, module_text
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

pytestmark = pytest.mark.skipif(
    not all((node_modules() / name / "package.json").is_file() for name in ("vue", "pinia", "async-wait-until")),
    reason="the frames' npm packages are not installed (scripts/setup.sh)",
)
CARD = "青梧"
PINIA = "https://testingcf.jsdelivr.net/npm/pinia/+esm"
WAIT = "https://testingcf.jsdelivr.net/npm/async-wait-until/+esm"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "梨园")
    seed_home(home)
    return home


def no_network(url: str) -> tuple[bytes, str, str]:
    raise AssertionError(f"fetched {url}")


def test_the_pinned_versions_are_installed() -> None:
    assert (installed_version("vue"), installed_version("pinia"), installed_version("async-wait-until")) == (
        "3.5.47", "4.1.0", "2.0.31")  # fmt: skip


def test_kais_cdn_addresses_come_from_the_packages_without_a_question(home: Home) -> None:
    vue = f"https://cdn.jsdelivr.net/npm/vue@{installed_version('vue')}/+esm"
    pinia = card_module(home, CARD, PINIA, fetch=no_network)
    assert pinia.fetched is False and pinia.deps == [vue]  # its `from "vue"`: the package's address
    assert "defineStore" in pinia.code and "__pear_dep_0__" in pinia.code
    waited = card_module(home, CARD, WAIT, fetch=no_network)
    assert "waitUntil" in waited.code and waited.deps == []
    shim = card_module(home, CARD, vue, fetch=no_network)
    assert shim.code.startswith("// Vue's ES module") and "globalThis.Vue" in shim.code
    for name in ("createApp", "ref", "computed", "watch", "defineComponent", "version"):
        assert f" {name}," in shim.code or f" {name} }}" in shim.code
    # Nothing was asked or pinned for the card: the packages answer before any of that.
    assert hosts_state(home, CARD) == {"card": CARD, "hosts": {}, "pins": []}


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.jsdelivr.net/npm/vue@2.7.16/+esm",  # another major
        "https://cdn.jsdelivr.net/npm/vue@3.4.21/+esm",  # an exact version that is not the installed one
        "https://cdn.jsdelivr.net/npm/pinia@2/+esm",
        "https://cdn.jsdelivr.net/npm/vue@next/+esm",  # a dist-tag
        "https://cdn.jsdelivr.net/npm/vue/dist/vue.cjs.js",  # a file of the package no frame runs as a module
        "https://esm.sh/vue@3",  # another CDN
    ],
)
def test_what_the_packages_do_not_satisfy_is_the_cards_remote_module(home: Home, url: str) -> None:
    assert packaged_module(url) is None
    with pytest.raises(HostQuestion):
        card_module(home, CARD, url, fetch=no_network)


def test_a_bare_import_of_a_package_is_its_address() -> None:
    code, deps = module_text("import { ref } from 'vue';\nimport 'pinia';\nimport x from 'react';", "")
    assert deps == [f"https://cdn.jsdelivr.net/npm/vue@{installed_version('vue')}/+esm",
                    f"https://cdn.jsdelivr.net/npm/pinia@{installed_version('pinia')}/+esm"]  # fmt: skip
    assert code == "import { ref } from '__pear_dep_0__';\nimport '__pear_dep_1__';\nimport x from 'react';"


@pytest.mark.parametrize(
    ("url", "library"),
    [
        ("https://cdn.jsdelivr.net/npm/vue@3/dist/vue.global.prod.js", "vue"),
        ("https://unpkg.com/vue@3.5/dist/vue.runtime.global.prod.js", "vue"),
        ("https://testingcf.jsdelivr.net/npm/vue", "vue"),  # the package's root: jsdelivr serves the global build
        ("https://cdnjs.cloudflare.com/ajax/libs/vue/3.5.47/vue.global.prod.min.js", "vue"),
        ("https://cdnjs.cloudflare.com/ajax/libs/vue/3.5.0/vue.global.prod.min.js", None),  # exact, not installed
        ("https://cdnjs.cloudflare.com/ajax/libs/vue/2.6.14/vue.min.js", None),
        ("https://cdn.jsdelivr.net/npm/vue@2/dist/vue.global.js", None),
        ("https://cdn.jsdelivr.net/npm/vue@3/+esm", None),  # a module, not the classic build
    ],
)  # fmt: skip
def test_vues_classic_build_is_the_frames_library(url: str, library: str | None) -> None:
    assert classic_library(url) == library


@pytest.mark.parametrize(
    ("wanted", "yes"),
    [
        (None, True), ("latest", True), ("3", True), ("3.5", True), ("3.x", True), ("^3.2.0", True),
        ("~3.5.0", True), (">=3.0.0 <4", True), ("2 || 3", True), ("3.5.47", True), ("v3.5.47", True),
        ("3.5.46", False), ("~3.4.0", False), ("^2.7", False), ("4", False), ("<3", False), ("next", False),
        ("3.5.47-beta.1", False),
    ],
)  # fmt: skip
def test_npm_ranges(wanted: str | None, yes: bool) -> None:
    assert satisfies("3.5.47", wanted) is yes


def test_zero_major_ranges_keep_the_minor() -> None:
    assert satisfies("0.2.3", "^0.2.1") and not satisfies("0.2.3", "^0.1") and not satisfies("0.0.4", "^0.0.3")


def test_without_the_packages_vue_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEARGARDEN_NODE_MODULES", str(tmp_path / "没有"))
    text = vue_global()
    assert text.startswith("throw new Error(") and "scripts/setup.sh" in text and "\n" not in text
