"""``ChatSession.preview``: what the next beat sends, from the same code as the beat, writing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.apps import scripted_app, seeded_home
from peargarden.agent.events import WarningEvent
from peargarden.app.play.service import ChatSession, PearApp
from peargarden.modes.stage.preset import declare_preset
from peargarden.providers.base import ChatRequest
from peargarden.providers.scripted import ScriptedProvider, text_turn
from peargarden.stage.entries import parse_entries
from peargarden.workspace.home import Home


@pytest.fixture
def home(home_dir: Path) -> Home:
    return seeded_home(home_dir)


def _app(home: Home, provider: ScriptedProvider) -> PearApp:
    return scripted_app(home, provider)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _same_request(sent: ChatRequest, previewed: ChatRequest) -> None:
    assert sent.messages == previewed.messages
    assert [t.name for t in sent.tools] == [t.name for t in previewed.tools]
    assert sent.sampler == previewed.sampler and sent.thinking == previewed.thinking and sent.model == previewed.model


def _chat_with_a_work_beat(home: Home, provider: ScriptedProvider) -> ChatSession:
    chat = _app(home, provider).new_chat("青梧")
    list(chat.send("掌柜，雨下了多久？"))
    chat.set_mode("work")
    list(chat.send("把开场白改短一点"))
    chat.set_mode("stage")
    return chat


@pytest.mark.parametrize("mode", ["stage", "tavern"])
def test_preview_is_the_request_of_the_beat_that_follows(
    home: Home, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    provider = ScriptedProvider().add(text_turn("快一个时辰了。"), text_turn("改好了。"), text_turn("青梧斟茶。"))
    chat = _chat_with_a_work_beat(home, provider)
    chat.set_mode(mode)
    before = _files(home.root)
    preview = chat.preview(mode, "那就再坐一会儿。")
    if mode == "tavern":  # `pear tavern assemble --chat` shows the same request
        from peargarden.cli import main

        capsys.readouterr()
        main(["--home", str(home.root), "tavern", "assemble", "--card", "青梧", "--chat", chat.chat_id,
              "--message", "那就再坐一会儿。"])  # fmt: skip
        assert json.loads(capsys.readouterr().out)["messages"] == preview.request.messages
    assert _files(home.root) == before  # a preview writes nothing
    list(chat.send("那就再坐一会儿。"))
    _same_request(provider.requests[-1], preview.request)
    # The work beat reaches role play only as its 【写卡维护】 lines, never as story turns.
    contents = [str(m.get("content")) for m in preview.request.messages]
    assert "把开场白改短一点" not in contents and "改好了。" not in contents
    assert any("写卡" in text and "把开场白改短一点" in text for text in contents)


def test_pear_stage_assemble_with_a_chat_shows_the_beat_pear_chat_sends(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    from peargarden.cli import main
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "off"\n[story]\nscene_notes = false\n'
            f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n',
            encoding="utf-8",
        )
        fake.script([text_reply("快一个时辰了。"), text_reply("改好了。"), text_reply("青梧斟茶。")])
        chat = PearApp(home).new_chat("青梧")
        list(chat.send("掌柜，雨下了多久？"))
        chat.set_mode("work")
        list(chat.send("把开场白改短一点"))
        chat.set_mode("stage")
        capsys.readouterr()
        main(["--home", str(home.root), "stage", "assemble", "--card", "青梧", "--chat", chat.chat_id,
              "--message", "那就再坐一会儿。", "--json"])  # fmt: skip
        shown = json.loads(capsys.readouterr().out)
        list(PearApp(home).open_chat("青梧", chat.chat_id).send("那就再坐一会儿。"))
        sent = fake.chat_requests[-1].body
    assert [{"role": "system", "content": shown["system"]}, *shown["messages"]] == sent["messages"]
    assert [t["function"]["name"] for t in shown["tools"]] == [t["function"]["name"] for t in sent.get("tools", [])]


def test_pear_stage_assemble_without_a_chat_is_the_first_beat_of_a_new_chat(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --chat: the service's preview of a new chat that is never written, and `pear chat --once`
    on a new chat then sends exactly what was printed."""
    from peargarden.cli import main
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    words = "掌柜可还记得怀瑾公子？镇北渡口那把旧油纸伞呢？"
    with FakeOpenAIServer() as fake:
        home.config_file.write_text(
            f'[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "high"\n[story]\nscene_notes = false\n'
            f'[providers.fake]\nbase_url = "{fake.base_url}"\napi_key = "sk-test"\n',
            encoding="utf-8",
        )
        fake.script([text_reply("青梧抬眼。")])
        before = _files(home.root)
        capsys.readouterr()
        main(["--home", str(home.root), "stage", "assemble", "--card", "青梧", "--message", words, "--json"])
        shown = json.loads(capsys.readouterr().out)
        assert _files(home.root) == before  # no chat folder, no AGENTS.md refresh: nothing written
        assert fake.chat_requests == []  # and no model called
        main(["--home", str(home.root), "chat", "--card", "青梧", "--once", words])
        sent = fake.chat_requests[-1].body
    assert [{"role": "system", "content": shown["system"]}, *shown["messages"]] == sent["messages"]
    assert shown["messages"][0]["role"] == "assistant"  # the greeting the new chat starts with
    assert [t["function"] for t in shown["tools"]] == [t["function"] for t in sent["tools"]]


def test_a_changed_preset_is_declared_again_as_its_own_step_and_never_by_a_preview(home: Home) -> None:
    def preset(style_enabled: bool) -> str:
        prompts = [{"identifier": "main", "name": "身份", "role": "system", "content": "你是资深写手。"},
                   {"identifier": "style", "name": "文风", "role": "system", "content": "白描为主。"},
                   {"identifier": "chatHistory", "name": "Chat History", "marker": True}]  # fmt: skip
        order = [{"identifier": "main", "enabled": True}, {"identifier": "style", "enabled": style_enabled},
                 {"identifier": "chatHistory", "enabled": True}]  # fmt: skip
        return json.dumps({"prompts": prompts, "prompt_order": [{"character_id": 100001, "order": order}]})

    (home.presets_dir / "雨夜.json").write_text(preset(True), encoding="utf-8")
    declare_preset(home, "青梧", "雨夜", given=[{"id": "main", "station": "identity"},
                                                {"id": "style", "station": "writing"}])  # fmt: skip
    (home.presets_dir / "雨夜.json").write_text(preset(False), encoding="utf-8")  # a block switched off
    agents = home.card_dir("青梧") / "AGENTS.md"
    provider = ScriptedProvider().add(text_turn("青梧抬眼。"))
    chat = _app(home, provider).new_chat("青梧")
    before = _files(home.root)
    chat.preview("stage", "掌柜好。")
    assert _files(home.root) == before  # the dry run of the web inspector and `pear stage assemble`
    events = list(chat.send("掌柜好。"))
    first = events[0]
    assert isinstance(first, WarningEvent) and "重新声明" in first.message  # said before the model is called
    assert "文风（预设）" not in {e.name for e in parse_entries(agents.read_text(encoding="utf-8"))}
    assert len(provider.requests) == 1  # every label was cached: no side-model call


def test_pear_tavern_assemble_without_a_chat_is_the_first_beat_of_a_new_chat(
    home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    """One SillyTavern-state recipe: a preset that squashes system messages shows in the preview
    exactly what the first beat sends (a dry run that skips the squash would show more messages)."""
    from peargarden.cli import main
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    preset = Path(__file__).parents[1] / "tavern" / "oracle_cases_118" / "34-squash-system-messages" / "preset.json"
    assert json.loads(preset.read_text(encoding="utf-8"))["squash_system_messages"] is True
    (home.presets_dir / "合并系统消息.json").write_bytes(preset.read_bytes())
    unsquashed = {**json.loads(preset.read_text(encoding="utf-8")), "squash_system_messages": False}
    (home.presets_dir / "不合并.json").write_text(json.dumps(unsquashed, ensure_ascii=False), encoding="utf-8")
    words = "掌柜，还有空房吗？"
    with FakeOpenAIServer() as fake:
        fake.script([text_reply("有的，楼上临河那间。")])
        home.config_file.write_text(
            f'[model]\nprovider = "m"\nmodel = "fake"\n[providers.m]\nbase_url = "{fake.base_url}"\n', encoding="utf-8"
        )
        capsys.readouterr()
        main(["--home", str(home.root), "tavern", "assemble", "--card", "青梧", "--preset", "合并系统消息",
              "--message", words])  # fmt: skip
        previewed = json.loads(capsys.readouterr().out)["messages"]
        main(["--home", str(home.root), "tavern", "assemble", "--card", "青梧", "--preset", "不合并",
              "--message", words])  # fmt: skip
        apart = json.loads(capsys.readouterr().out)["messages"]
        home.config_file.write_text(f'preset = "合并系统消息"\n{home.config_file.read_text(encoding="utf-8")}',
                                    encoding="utf-8")  # fmt: skip
        main(["--home", str(home.root), "chat", "--card", "青梧", "--mode", "tavern", "--once", words])
        sent = fake.chat_requests[0].body["messages"]
    assert previewed == sent
    assert len(sent) < len(apart)  # squashed, as SillyTavern sends it
