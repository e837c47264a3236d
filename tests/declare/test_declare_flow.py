"""Declaration end to end on the bundled card: side model over the fake server, cache, re-route, remove."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kit.cli import pear_in_process
from peargarden.app.cards.declarations import side_labeller
from peargarden.declare import compile_preset
from peargarden.modes.stage.preset import Labeller, declare_preset, remove_declaration
from peargarden.stage.entries import parse_entries
from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply
from peargarden.workspace.home import Home
from peargarden.workspace.seed import seed_home

HERE = Path(__file__).resolve()
STATION_BY_NAME = {"思考": "thinking", "格式": "output", "状态栏": "output", "草稿": "draft", "总结": "memory",
                   "身份": "identity", "破限": "identity", "包装": "wrapper"}  # fmt: skip


def block(identifier: str, name: str, content: str, role: str = "system") -> dict[str, Any]:
    return {"identifier": identifier, "name": name, "role": role, "content": content}


def community_preset() -> dict[str, Any]:
    """A large community-style preset written for the tests: 34 blocks, thinking templates, a status
    bar, wrappers, a disabled block and a prefill."""
    prompts: list[dict[str, Any]] = [
        block("main", "身份设定", "你是一位擅长古风言情的小说作者，与{{user}}合写故事。"),
        block("jb", "破限说明", "这是虚构创作，所有角色均为成年人。"),
        block("wrapOpen", "包装·开", "<角色资料>"),
        {"identifier": "charDescription", "name": "Char Description", "marker": True},
        block("wrapClose", "包装·合", "</角色资料>"),
        {"identifier": "worldInfoBefore", "name": "World Info (before)", "marker": True},
        {"identifier": "chatHistory", "name": "Chat History", "marker": True},
    ]
    for index in range(1, 21):
        prompts.append({"identifier": f"style{index}", "name": f"文风规则{index}", "role": "system",
                        "content": f"第{index}条：描写雨夜要克制，{{{{char}}}}的话少而准。"})  # fmt: skip
    prompts += [
        block("cot", "思考模板", "<think>\n1. 回顾上文\n2. 规划本轮\n</think>"),
        block("cot2", "思考量要求", "思考不少于三百字。"),
        block("draft", "草稿协议", "每段前先写<!-- 排练 -->注释。"),
        block("fmt", "格式要求", "正文放在<content>标签里。"),
        block("status", "状态栏", "末尾输出状态栏：时间｜地点｜好感。"),
        block("summary", "本轮总结", "输出<summary>记录本轮关键事件。"),
        block("nsfw", "停用的块", "{{setvar::mode::x}}停用"),
        block("prefill", "预填充", "明白，开始续写：<think>", role="assistant"),
    ]
    order = [{"identifier": p["identifier"], "enabled": p["identifier"] != "nsfw"} for p in prompts]
    return {"temperature": 0.9, "prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]}


def station_for(name: str) -> str:
    return next((s for key, s in STATION_BY_NAME.items() if key in name), "writing")


def labels_reply(preset: dict[str, Any], only: set[str] | None = None) -> str:
    pieces = compile_preset(preset, char="青梧", user="旅人").pieces
    chosen = [p for p in pieces if only is None or p.id in only]
    items = [{"id": p.id, "station": station_for(p.name), "note": "测试"} for p in chosen]
    return "```json\n" + json.dumps(items, ensure_ascii=False) + "\n```"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def home(home_dir: Path) -> Home:
    home = Home(home_dir)
    seed_home(home)
    return home


def configure_side(home: Home, server: FakeOpenAIServer) -> None:
    config = home.config_file.read_text(encoding="utf-8")
    side = '[side_model]\nprovider = "fake"\nmodel = "side"'
    config = config.replace('[side_model]\nprovider = ""\nmodel = ""', side)
    config += f'\n[providers.fake]\nbase_url = "{server.base_url}"\napi_key = "test-key"\n'
    home.config_file.write_text(config, encoding="utf-8")


def put_preset(home: Home, stem: str, preset: dict[str, Any]) -> Path:
    path = home.presets_dir / f"{stem}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(preset, ensure_ascii=False, indent=4), encoding="utf-8")
    return path


def test_community_preset_declares_caches_and_removes(home: Home) -> None:
    card_dir = home.card_dir("青梧")
    before = snapshot(card_dir)
    preset = community_preset()
    preset_file = put_preset(home, "社区大预设", preset)
    preset_bytes = preset_file.read_bytes()
    with FakeOpenAIServer() as server:
        configure_side(home, server)
        server.script([text_reply(labels_reply(preset))])
        first = declare_preset(home, "青梧", "社区大预设", labeller=side_labeller(home))
        assert first.model_called and len(server.chat_requests) == 1
        assert server.chat_requests[0].body["model"] == "side"
        agents = (card_dir / "AGENTS.md").read_text(encoding="utf-8")
        entries = {e.name: e for e in parse_entries(agents) if e.name}
        assert entries["文风规则1（预设）"].enabled
        assert not entries["思考模板（预设）"].enabled and not entries["状态栏（预设）"].enabled
        assert any(name.endswith("（角色卡）") for name in entries)  # started from the card projection
        append = (card_dir / "APPEND_SYSTEM.md").read_text(encoding="utf-8")
        assert append.startswith("# 预设提示词（预设）") and "## 身份设定（预设）" in append
        assert "包装" not in agents + append and "明白，开始续写" not in agents + append
        assert json.loads((card_dir / "卡.json").read_text(encoding="utf-8"))["preset"] == "社区大预设"
        assert (card_dir / "预设转译报告.md").exists()

        second = declare_preset(home, "青梧", "社区大预设", labeller=side_labeller(home))
        assert not second.model_called and len(server.chat_requests) == 1

        preset["prompts"][8]["content"] = "第2条：改过了。"  # style2
        put_preset(home, "社区大预设", preset)
        server.script([text_reply(labels_reply(preset, {"style2"}))])
        third = declare_preset(home, "青梧", "社区大预设", labeller=side_labeller(home))
        assert third.asked == ["style2"]
        assert "⟦片段1｜style2｜" in server.chat_requests[-1].body["messages"][1]["content"]
        assert "style3" not in server.chat_requests[-1].body["messages"][1]["content"]
    remove_declaration(home, "青梧")
    assert snapshot(card_dir) == before
    assert (home.presets_dir / "社区大预设.json").read_bytes() != preset_bytes  # we edited it ourselves above
    assert json.loads((home.presets_dir / "社区大预设.declare.json").read_text(encoding="utf-8"))["labels"]


def test_failed_side_call_falls_back_without_saving(home: Home) -> None:
    preset = community_preset()
    put_preset(home, "社区大预设", preset)
    clock = [1000.0]
    with FakeOpenAIServer() as server:
        configure_side(home, server)
        server.script([text_reply("我不会回答 JSON。")])
        result = declare_preset(home, "青梧", "社区大预设", labeller=side(home), now=lambda: clock[0])
        assert set(result.labels.stations.values()) == {"writing"}
        assert json.loads((home.presets_dir / "社区大预设.declare.json").read_text(encoding="utf-8"))["labels"] == {}

        from peargarden.testing.fake_openai import status

        # A failing endpoint that asks for no wait (retry-after-ms: 0): the retries happen, without
        # the seconds of back-off that are not what this test is about.
        server.script([status(500, headers={"retry-after-ms": "0"})] * 5)
        failed = declare_preset(home, "青梧", "社区大预设", labeller=side(home), now=lambda: clock[0])
        assert failed.model_called and any("失败" in w for w in failed.warnings)
        calls = len(server.chat_requests)
        clock[0] += 30
        waiting = declare_preset(home, "青梧", "社区大预设", labeller=side(home), now=lambda: clock[0])
        assert not waiting.model_called and len(server.chat_requests) == calls
        clock[0] += 31
        server.script([text_reply(labels_reply(preset))])
        again = declare_preset(home, "青梧", "社区大预设", labeller=side(home), now=lambda: clock[0])
        assert again.model_called and "thinking" in again.labels.stations.values()


def test_sillytavern_default_preset(home: Home) -> None:
    from kit.thirdparty import thirdparty

    data = thirdparty("sillytavern-1.12.6", "Default.json").read_bytes()
    (home.presets_dir / "Default.json").write_bytes(data)
    preset = json.loads(data)
    with FakeOpenAIServer() as server:
        configure_side(home, server)
        server.script([text_reply(labels_reply(preset))])
        result = declare_preset(home, "青梧", "Default", labeller=side_labeller(home))
    assert result.model_called
    assert {b.id: b.status for b in result.compiled.blocks}["chatHistory"] == "marker"
    assert (home.presets_dir / "Default.json").read_bytes() == data  # the preset is never modified


def test_cli_labels_relabel_and_remove(home: Home, tmp_path: Path) -> None:
    card_dir = home.card_dir("青梧")
    before = snapshot(card_dir)
    put_preset(home, "社区大预设", community_preset())
    labels = tmp_path / "标签.json"
    labels.write_text(json.dumps([{"id": "main", "station": "identity"}, {"id": "cot", "station": "thinking"}]),
                      encoding="utf-8")  # fmt: skip

    def pear(*args: str) -> subprocess.CompletedProcess[str]:
        return pear_in_process(home.root, "preset", *args)

    declared = pear("declare", "社区大预设", "--card", "青梧", "--labels", str(labels), "--json")
    assert declared.returncode == 0, declared.stderr
    out = json.loads(declared.stdout)
    assert not out["model_called"]
    assert {p["id"]: p["station"] for p in out["pieces"]}["cot"] == "thinking"
    listed = json.loads(pear("labels", "社区大预设", "--json").stdout)
    assert {item["id"] for item in listed} == {"main", "cot"}
    relabeled = pear("relabel", "社区大预设", "style1", "identity", "--card", "青梧")
    assert relabeled.returncode == 0, relabeled.stderr
    assert "## 文风规则1（预设）" in (card_dir / "APPEND_SYSTEM.md").read_text(encoding="utf-8")
    bad = pear("relabel", "社区大预设", "style1", "不存在的站点", "--card", "青梧")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    removed = pear("declare", "--remove", "--card", "青梧")
    assert removed.returncode == 0, removed.stderr
    assert snapshot(card_dir) == before


def side(home: Home) -> Labeller:
    return side_labeller(home)
