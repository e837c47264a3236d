"""Remote modules (issue 45 item 4) against a local fake CDN over real HTTP: a host never answered is a
question, a refused one a line; an allowed one is fetched once, kept content-addressed in the data
folder and pinned, then played offline; the module's imports come back as markers with their
addresses; a changed file on disk is never played."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from peargarden.app.play.remote_modules import (
    HostQuestion,
    RemoteRefused,
    answer_host,
    card_module,
    hosts_state,
    module_text,
)
from peargarden.errors import PearError
from peargarden.testing.fake_cdn import FakeCdn
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

CARD = "青梧"
LIB = "export const 问候 = (name) => '你好，' + name;\nexport default 42;\n"
ENTRY = "import d, { 问候 } from '/npm/问候@1.0.0/+esm';\nimport './side.js';\nexport const 值 = 问候('阿梨') + d;\n"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "梨园")
    seed_home(home)
    return home


@pytest.fixture
def cdn() -> Iterator[FakeCdn]:
    with FakeCdn() as server:
        server.add("/npm/问候@1.0.0/+esm", LIB)
        server.add("/gh/作者/卡/入口.js", ENTRY)
        yield server


def test_a_host_never_answered_is_one_question_and_nothing_is_fetched(home: Home, cdn: FakeCdn) -> None:
    url = cdn.url("/gh/作者/卡/入口.js")
    with pytest.raises(HostQuestion) as asked:
        card_module(home, CARD, url)
    assert asked.value.host == cdn.host
    assert "青梧" in asked.value.message and cdn.host in asked.value.message
    assert sum(cdn.requests.values()) == 0


def test_a_refused_host_gets_one_line_and_no_request(home: Home, cdn: FakeCdn) -> None:
    answer_host(home, CARD, cdn.host, False)
    with pytest.raises(RemoteRefused) as refused:
        card_module(home, CARD, cdn.url("/gh/作者/卡/入口.js"))
    assert "不允许" in refused.value.message and "\n" not in refused.value.message
    assert sum(cdn.requests.values()) == 0


def test_an_allowed_host_is_fetched_once_then_played_offline(home: Home, cdn: FakeCdn) -> None:
    url = cdn.url("/gh/作者/卡/入口.js")
    answer_host(home, CARD, cdn.host, True)
    first = card_module(home, CARD, url)
    assert first.fetched
    assert first.deps == [cdn.url("/npm/问候@1.0.0/+esm"), cdn.url("/gh/作者/卡/side.js")]
    assert "from '__pear_dep_0__'" in first.code and "import '__pear_dep_1__'" in first.code
    again = card_module(home, CARD, url)
    assert not again.fetched and again.code == first.code
    assert cdn.requests["/gh/作者/卡/入口.js"] == 1
    stored = home.root / "modules" / first.sha256[:2] / first.sha256
    assert stored.read_text(encoding="utf-8") == ENTRY  # content-addressed, as served
    pins = json.loads((home.card_dir(CARD) / "卡.json").read_text(encoding="utf-8"))["remote_modules"]
    assert pins[url]["sha256"] == first.sha256

    cdn.files["/gh/作者/卡/入口.js"] = (b"export const \xe5\x80\xbc = 'changed';", "text/javascript")
    cdn.stop()  # offline; and the CDN's file changed meanwhile: the pinned bytes play
    assert card_module(home, CARD, url).code == first.code
    assert hosts_state(home, CARD)["hosts"] == {cdn.host: True}


def test_an_allowed_host_offline_says_the_fetch_failed(home: Home, cdn: FakeCdn) -> None:
    answer_host(home, CARD, cdn.host, True)
    url = cdn.url("/gh/作者/卡/入口.js")
    cdn.stop()
    with pytest.raises(RemoteRefused) as failed:
        card_module(home, CARD, url)
    assert "下载失败" in failed.value.message


def test_a_missing_file_and_a_redirect_elsewhere(home: Home, cdn: FakeCdn) -> None:
    answer_host(home, CARD, cdn.host, True)
    with pytest.raises(RemoteRefused, match="HTTP 404"):
        card_module(home, CARD, cdn.url("/没有.js"))
    cdn.redirects["/跳转.js"] = "http://evil.invalid/steal.js"
    with pytest.raises(RemoteRefused, match=r"evil\.invalid"):
        card_module(home, CARD, cdn.url("/跳转.js"))
    cdn.redirects["/最新.js"] = "/npm/问候@1.0.0/+esm"  # jsdelivr's way to a version: same host
    assert card_module(home, CARD, cdn.url("/最新.js")).code == LIB


def test_bytes_changed_on_disk_are_never_played(home: Home, cdn: FakeCdn) -> None:
    answer_host(home, CARD, cdn.host, True)
    url = cdn.url("/npm/问候@1.0.0/+esm")
    found = card_module(home, CARD, url)
    (home.root / "modules" / found.sha256[:2] / found.sha256).write_text("alert(1)", encoding="utf-8")
    with pytest.raises(PearError, match="被改动过"):
        card_module(home, CARD, url)


def test_only_web_addresses_and_real_host_names(home: Home) -> None:
    with pytest.raises(PearError, match="不是网络地址"):
        card_module(home, CARD, "file:///etc/passwd")
    with pytest.raises(PearError, match="不是主机名"):
        answer_host(home, CARD, "a b/c", True)


def test_module_text_rewrites_addresses_not_bare_names() -> None:
    code, deps = module_text(
        'import{a}from"/npm/vue@3/+esm";export*from"./b.js";const c=await import("https://x.cn/c.js");import "react";',
        "https://cdn.jsdelivr.net/npm/pinia@2/+esm",
    )
    assert deps == [
        "https://cdn.jsdelivr.net/npm/vue@3/+esm",
        "https://cdn.jsdelivr.net/npm/pinia@2/b.js",
        "https://x.cn/c.js",
    ]
    assert code == ('import{a}from"__pear_dep_0__";export*from"__pear_dep_1__";'
                    'const c=await import("__pear_dep_2__");import "react";')  # fmt: skip


# A template card's schema script only imports its schema from a URL (diealone's card); the module is
# a bundle whose first line imports StageDog's mvu_zod and which registers once the page is ready.
SCHEMA_MODULE = """import * as 工具 from "https://testingcf.jsdelivr.net/gh/StageDog/tavern_resource/dist/util/mvu_zod.js";
const Schema = z.object({ 白娅: z.object({ 依存度: z.coerce.number().transform(v => _.clamp(v, 0, 100)) }) });
$(() => { 工具.registerMvuSchema(Schema); });
"""


def test_a_schema_imported_from_a_url_is_the_cards_once_pinned(home: Home, cdn: FakeCdn) -> None:
    from peargarden.app.play.variables import card_schema

    url = cdn.add("/gh/作者/模板/脚本/变量结构/index.js", SCHEMA_MODULE)
    script = {"type": "script", "enabled": True, "name": "变量结构", "id": "s1", "content": f"import '{url}';"}
    extensions = {"tavern_helper": {"scripts": [script]}}
    card = {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {"name": "依存", "first_mes": "……", "extensions": extensions},
    }
    folder = home.card_dir("依存")
    folder.mkdir(parents=True)
    (folder / "依存.json").write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    assert card_schema(home, "依存") is None  # not fetched yet: MVU's classic rules, as before

    answer_host(home, "依存", cdn.host, True)
    card_module(home, "依存", url)  # the chat page's frame loaded it once
    cdn.stop()
    schema = card_schema(home, "依存")
    assert schema is not None
    record = {"stat_data": {"白娅": {"依存度": "190"}}}
    run = schema.initialized(record, 0)
    assert run.registered and run.warnings == []
    assert record["stat_data"] == {"白娅": {"依存度": 100}}  # coerced and clamped by the card's schema


def test_addresses_fetched_at_the_same_time_are_all_pinned(home: Home, cdn: FakeCdn) -> None:
    # A frame's fetches come together (a script's $.get and its XMLHttpRequest): each pin is kept, none
    # lost to another request's write of 卡.json.
    answer_host(home, CARD, cdn.host, True)
    urls = [cdn.add(f"/gh/作者/数据/第{n}份.json", f'{{"份": {n}}}', "application/json") for n in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        loaded = list(pool.map(lambda url: card_module(home, CARD, url, module=False), urls))
    assert all(item.fetched for item in loaded)
    pins = json.loads((home.card_dir(CARD) / "卡.json").read_text(encoding="utf-8"))["remote_modules"]
    assert sorted(pins) == sorted(urls)
