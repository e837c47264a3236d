"""Issue 15's corpus: every class of real SillyTavern content goes through import → assemble
(tavern and stage) → card expand/check/apply → export with the behaviour the issue states.

The files are built from code (``content_corpus``), shaped like what SillyTavern and other tools write.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from content_corpus import (
    GLOBAL_PAIR,
    GLOBAL_TEA,
    LONE_HIGH,
    LONE_LOW,
    card_charx,
    card_png,
    crlf_card,
    english_card,
    js_json,
    jsonl,
    lone_surrogate_card,
    macro_card,
    new_preset,
    pear_here,
    probability_book,
    regex_card,
    st_chat_112,
    st_chat_118,
    string_id_card,
    v1_card_with_extras,
    v2_card_missing_fields,
)

from peargarden.formats import read_card
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home

FORMATS = ("json", "png", "charx")


def _bytes(card: dict[str, Any], fmt: str) -> bytes:
    return {"json": lambda: js_json(card, indent=4), "png": lambda: card_png(card), "charx": lambda: card_charx(card)}[
        fmt
    ]()


def ok(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    done = pear_here(home, *args)
    assert done.returncode == 0, f"pear {' '.join(map(str, args))}: {done.stderr}"
    return done


def put(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def tavern(home: Path, card: str, *extra: str) -> dict[str, Any]:
    done = ok(home, "tavern", "assemble", "--card", card, "--json", *extra)
    assert "无法组装" not in done.stderr and "意外错误" not in done.stderr
    body: dict[str, Any] = json.loads(done.stdout)
    return body


def stage(home: Path, card: str, message: str, thinking: str = "off") -> dict[str, Any]:
    body: dict[str, Any] = json.loads(
        ok(home, "stage", "assemble", "--card", card, "--message", message, "--thinking", thinking, "--no-small",
           "--json").stdout
    )
    return body


def sent_text(body: dict[str, Any]) -> str:
    """Everything a request body carries as text (system prompt and messages)."""
    parts = [str(body.get("system") or "")] + [str(m.get("content") or "") for m in body["messages"]]
    return "\n".join(parts)


def card_file(home: Path, folder: str) -> Path:
    found = open_card(Home(home), folder).card_file()
    assert found is not None
    return found


def expand_check_apply_is_a_no_op(home: Path, folder: str) -> None:
    before = card_file(home, folder).read_bytes()
    ok(home, "card", "expand", folder)
    report = json.loads(ok(home, "card", "check", folder, "--json").stdout)
    assert report["changes"] == [] and report["problems"] == [] and not report["stale"]
    ok(home, "card", "apply", folder)
    assert card_file(home, folder).read_bytes() == before


def export_object(home: Path, tmp_path: Path, folder: str, fmt: str = "json", spec: str = "v2") -> dict[str, Any]:
    out = tmp_path / f"out-{folder}-{fmt}.{fmt}"
    ok(home, "export", "card", folder, "--format", fmt, "--spec", spec, "-o", out)
    return read_card(out.read_bytes(), out.name).data


# -- 1. lone surrogates ----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_lone_surrogates_are_kept_everywhere(fmt: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    card = lone_surrogate_card()
    data = _bytes(card, fmt)
    ok(home, "import", put(tmp_path, f"碎簪.{fmt}", data))
    assert card_file(home, "碎簪").read_bytes() == data
    book = (home / "library" / "lorebooks" / "碎簪设定.json").read_bytes()
    assert b"\\ud83d" in book  # escaped as JSON.stringify does, so the file is UTF-8
    assert LONE_HIGH in sent_text(tavern(home, "碎簪", "--message", "梅花簪还在吗？"))
    staged = stage(home, "碎簪", "梅花簪还在吗？")
    assert f"断了一截{LONE_HIGH}" in staged["system"] and f"遗物{LONE_HIGH}" in sent_text(staged)
    found = json.loads(ok(home, "lore", "search", "--card", "碎簪", "梅花", "--json").stdout)
    assert found[0]["body"] == f"梅花簪是母亲的遗物{LONE_HIGH}。"
    expand_check_apply_is_a_no_op(home, "碎簪")
    for out_fmt in FORMATS:
        exported = export_object(home, tmp_path, "碎簪", out_fmt, "v3" if out_fmt == "charx" else "v2")
        assert exported["description"] == card["data"]["description"]
        assert exported["first_mes"] == f"“客官{LONE_LOW}请坐。”"
        contents = [e["content"] for e in exported["character_book"]["entries"]]
        assert f"梅花簪是母亲的遗物{LONE_HIGH}。" in contents


def test_json_export_of_a_sillytavern_card_gives_its_object_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    card = lone_surrogate_card()
    ok(home, "import", put(tmp_path, "碎簪.json", js_json(card, indent=4)))
    out = tmp_path / "back.json"
    ok(home, "export", "card", "碎簪", "--format", "json", "--spec", "v2", "-o", out)
    raw = out.read_bytes()
    raw.decode("utf-8")  # valid UTF-8
    assert b"\\ud83d" in raw and b"\\udc7f" in raw
    back = json.loads(raw)
    assert back["data"]["description"] == card["data"]["description"]
    assert back["description"] == card["description"]


def test_the_model_gets_valid_utf8_json_with_replacement_characters(tmp_path: Path) -> None:
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "碎簪.png", card_png(lone_surrogate_card())))
    with FakeOpenAIServer() as server:
        # Every request gets an answer: the two beats and the stage beat's story-memory side call
        # (unanswered, it would be a 500 retried with seconds of back-off).
        server.default_reply = text_reply("好。")
        for mode in ("tavern", "stage"):
            ok(home, "chat", "--card", "碎簪", "--mode", mode, "--once", "梅花簪呢？", "--thinking", "off",
               "--base-url", server.base_url, "--model", "fake-model", "--api-key-env", "PEAR_NO_KEY")  # fmt: skip
        # Every request (the beats and any story-memory side call after them) is valid UTF-8 JSON.
        texts = [json.dumps(request.body["messages"], ensure_ascii=False) for request in server.chat_requests]
        for text in texts:
            text.encode("utf-8")  # no lone surrogate reached the server
        assert sum("断了一截\ufffd" in text for text in texts) >= 2  # the tavern beat and the stage beat


def test_a_failed_expand_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from peargarden.modes.work.project import CardProject
    from peargarden.workspace import atomic

    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "碎簪.png", card_png(lone_surrogate_card())))
    folder = open_card(Home(home), "碎簪")
    real = atomic.write_bytes
    calls: list[Path] = []

    def failing(path: Path, data: bytes, **kw: Any) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(path, data, **kw)

    monkeypatch.setattr(atomic, "write_bytes", failing)
    with pytest.raises(OSError):
        CardProject(folder).expand()
    assert len(calls) == 3
    assert not (folder.path / "创作").exists()


# -- 2. CRLF ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "png"])
def test_crlf_fields_expand_check_and_apply_only_what_changed(fmt: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    card = crlf_card()
    ok(home, "import", put(tmp_path, f"晚舟.{fmt}", _bytes(card, fmt)))
    before = read_card(card_file(home, "晚舟").read_bytes(), "x").data
    expand_check_apply_is_a_no_op(home, "晚舟")
    sources = home / "cards" / "晚舟" / "创作" / "sources"
    description = next(sources.glob("描述-*.txt"))
    assert description.read_bytes() == card["data"]["description"].encode("utf-8")  # \r\n kept on disk
    # An editor that saves with bare \n and one word changed.
    edited = description.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("三首歌", "五首歌")
    description.write_bytes(edited.encode("utf-8"))
    report = json.loads(ok(home, "card", "check", "晚舟", "--json").stdout)
    assert [c["label"] for c in report["changes"]] == ["描述"]
    ok(home, "card", "apply", "晚舟")
    after = read_card(card_file(home, "晚舟").read_bytes(), "x").data
    assert after["description"] == "晚舟是渡船上的船娘。\r\n她会唱五首歌。\r\n"
    for key in ("personality", "first_mes", "mes_example", "character_book"):
        assert after[key] == before[key]
    report = json.loads(ok(home, "card", "check", "晚舟", "--json").stdout)
    assert report["changes"] == []


# -- 3. regex scripts: the card's allowance, global script files ---------------------------------


def test_card_regex_scripts_run_only_when_allowed_in_tavern_and_stage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = ok(home, "import", put(tmp_path, "听雨.png", card_png(regex_card())))
    assert "待首次游玩时确认" in done.stdout  # no terminal: asked at the first play
    settings = json.loads((home / "cards" / "听雨" / "卡.json").read_text(encoding="utf-8"))
    assert "regex_allowed" not in settings
    assert "<status>" in sent_text(tavern(home, "听雨"))
    assert "<status>" in sent_text(stage(home, "听雨", "再弹一曲。"))
    ok(home, "tavern", "set", "regex", "on", "--card", "听雨")
    assert json.loads((home / "cards" / "听雨" / "卡.json").read_text(encoding="utf-8"))["regex_allowed"] is True
    assert "<status>" not in sent_text(tavern(home, "听雨"))
    staged = stage(home, "听雨", "再弹一曲。")
    assert "<status>" not in sent_text(staged) and "琴声停了。" in sent_text(staged)
    ok(home, "tavern", "set", "regex", "关", "--card", "听雨")
    assert "<status>" in sent_text(stage(home, "听雨", "再弹一曲。"))


def test_first_play_without_a_terminal_says_how_to_allow(tmp_path: Path) -> None:
    from peargarden.testing.fake_openai import FakeOpenAIServer, text_reply

    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "听雨.png", card_png(regex_card())))
    with FakeOpenAIServer() as server:
        server.script([text_reply("嗯。")])
        done = ok(home, "chat", "--card", "听雨", "--mode", "tavern", "--once", "再弹一曲。",
                  "--base-url", server.base_url, "--model", "fake-model", "--api-key-env", "PEAR_NO_KEY")  # fmt: skip
        assert "pear tavern set regex on --card 听雨" in done.stderr
        assert "<status>" in json.dumps(server.chat_requests[0].body["messages"], ensure_ascii=False)
    assert "regex_allowed" not in json.loads((home / "cards" / "听雨" / "卡.json").read_text(encoding="utf-8"))


def test_import_answers_the_regex_question_when_told(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok(home, "import", "--regex", "allow", put(tmp_path, "听雨.json", js_json(regex_card())))
    settings = json.loads((home / "cards" / "听雨" / "卡.json").read_text(encoding="utf-8"))
    assert settings["regex_allowed"] is True
    assert "<status>" not in sent_text(tavern(home, "听雨"))
    bad = pear_here(home, "import", "--regex", "maybe", put(tmp_path, "x.json", js_json(regex_card())))
    assert bad.returncode == 2 and "--regex" in bad.stderr


def test_regex_script_files_import_as_global_scripts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    single, pair = js_json(GLOBAL_TEA, indent=4), js_json(GLOBAL_PAIR, indent=2)
    ok(home, "import", put(tmp_path, "regex-茶改酒.json", single), put(tmp_path, "正则合集.json", pair))
    assert (home / "library" / "regex" / "regex-茶改酒.json").read_bytes() == single
    assert (home / "library" / "regex" / "正则合集.json").read_bytes() == pair
    ok(home, "import", put(tmp_path, "听雨.png", card_png(regex_card())))
    words = "来一壶清茶，看月色。"
    for body in (tavern(home, "听雨", "--message", words), stage(home, "听雨", words)):
        text = sent_text(body)
        assert "来一壶烈酒，看日光。" in text and "清茶" not in text
    bad = pear_here(home, "import", put(tmp_path, "坏.json", b'[{"findRegex": "/a/", "placement": 2}]'))
    assert bad.returncode == 2 and "坏.json" in bad.stderr and "placement" in bad.stderr


# -- 4. the stage runs the macro pipeline ---------------------------------------------------------


def test_stage_runs_every_macro_over_fields_titles_and_bodies(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "砚秋.json", js_json(macro_card(), indent=4)))
    staged = stage(home, "砚秋", "说起旧宅，你去过吗？")
    text = sent_text(staged)
    assert "旅人推门走进砚秋的书铺。桌上是龙井。晴天。" in staged["system"]
    assert "砚秋话少。" in staged["system"] and "作者的注释" not in text
    assert "【旅人的旧宅】旅人的旧宅在河对岸，砚秋去过一次。" in text
    assert staged["messages"][0]["content"] == "“旅人，来了？”"
    for raw in ("<user>", "<bot>", "<USER>", "{{"):
        assert raw not in text
    titles = sent_text(stage(home, "砚秋", "说起旧宅，你去过吗？", thinking="high"))
    assert "旅人的旧宅" in titles and "{{user}}" not in titles
    assert "<user>" not in sent_text(tavern(home, "砚秋"))


# -- 5. chat export is lossless --------------------------------------------------------------------


@pytest.mark.parametrize("style", ["1.12", "1.18"])
def test_sillytavern_chat_exports_back_to_the_same_lines(style: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "砚秋.json", js_json(macro_card())))
    lines = st_chat_112("旅人", "砚秋") if style == "1.12" else st_chat_118("旅人", "砚秋")
    ok(home, "import", "--card", "砚秋", put(tmp_path, f"砚秋 - {style}.jsonl", jsonl(lines)))
    chat_id = f"砚秋 - {style}"
    out = tmp_path / "back.jsonl"
    ok(home, "sessions", "export", chat_id, "--card", "砚秋", "-o", out)
    raw = out.read_bytes()
    back = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    assert back == lines  # every key and value; order aside
    assert re.findall(rb'"create_date":""', raw) == []


# -- 6. the language follows the card ---------------------------------------------------------------


def test_stage_language_follows_the_card_unless_set(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "mira.png", card_png(english_card())))
    ok(home, "import", put(tmp_path, "阿青.json", js_json(v2_card_missing_fields())))
    english = stage(home, "Mira", "Hello?")["messages"][-1]["content"]
    assert "【语言】以英语写" in english and "中文" not in english
    chinese = stage(home, "青梧", "掌柜在吗？")["messages"][-1]["content"]
    assert "【语言】以中文写" in chinese
    assert "【语言】" not in stage(home, "阿青", "在吗？")["messages"][-1]["content"]  # too little to tell
    config = home / "config.toml"
    config.write_text(re.sub(r'(?m)^language = ""', 'language = "粤语"', config.read_text("utf-8")), "utf-8")
    assert "【语言】以粤语写" in stage(home, "Mira", "Hello?")["messages"][-1]["content"]


# -- 7. live world-info probability ------------------------------------------------------------------


def test_live_tavern_assembly_rolls_real_seedable_numbers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "石头.json", js_json(string_id_card())))
    ok(home, "import", "--card", "石头", put(tmp_path, "概率.json", js_json(probability_book(), indent=4)))
    seen = []
    for seed in range(16):
        text = sent_text(tavern(home, "石头", "--seed", str(seed)))
        assert "零概率条目永不出现" not in text
        seen.append("半数概率条目" in text)
    assert any(seen) and not all(seen)
    again = [("半数概率条目" in sent_text(tavern(home, "石头", "--seed", str(seed)))) for seed in range(4)]
    assert again == seen[:4]


# -- 8. other real-world shapes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "folder", "build", "fmt"),
    [
        ("老周.json", "老周", v1_card_with_extras, "json"),
        ("阿青.json", "阿青", v2_card_missing_fields, "json"),
        ("石头.png", "石头", string_id_card, "png"),
        ("石头.charx", "石头", string_id_card, "charx"),
    ],
)
def test_odd_card_shapes_import_assemble_and_round_trip(
    name: str, folder: str, build: Any, fmt: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    card = build()
    data = js_json(card, indent=4) if fmt == "json" else _bytes(card, fmt)
    ok(home, "import", put(tmp_path, name, data))
    assert card_file(home, folder).read_bytes() == data
    tavern(home, folder, "--message", "在吗？")
    stage(home, folder, "在吗？")
    expand_check_apply_is_a_no_op(home, folder)
    exported = export_object(home, tmp_path, folder, "json", "v2")
    source = card.get("data", card)
    for key in ("name", "description"):
        assert exported[key] == source[key]
    out = tmp_path / "top.json"
    ok(home, "export", "card", folder, "--format", "json", "--spec", "v2", "-o", out)
    top = json.loads(out.read_bytes())
    if folder == "老周":
        assert top["x_tool_meta"] == card["x_tool_meta"] and top["chat"] == card["chat"]
    if folder == "石头":
        entries = exported["character_book"]["entries"]
        assert [e["comment"] for e in entries] == ["山门", "石阶", "古松"]
        book = json.loads((home / "library" / "lorebooks" / "山门.json").read_text(encoding="utf-8"))
        assert sorted(e["comment"] for e in book["entries"].values()) == ["古松", "山门", "石阶"]


def test_newer_preset_fields_are_kept_and_assemble(tmp_path: Path) -> None:
    home = tmp_path / "home"
    preset = js_json(new_preset(), indent=4)
    ok(home, "import", put(tmp_path, "新预设.json", preset), put(tmp_path, "石头.json", js_json(string_id_card())))
    assert (home / "library" / "presets" / "新预设.json").read_bytes() == preset
    body = tavern(home, "石头", "--preset", "新预设", "--message", "山门朝哪边？")
    text = sent_text(body)
    assert "写石头的下一句。" in text and "白描。" in text
    staged = stage(home, "石头", "山门朝哪边？")
    assert "山门朝东。" in sent_text(staged)


def test_a_chosen_persona_name_reaches_the_stage_macros(tmp_path: Path) -> None:
    from peargarden.modes.stage.materials import load_stage_materials, with_user

    home = tmp_path / "home"
    ok(home, "import", put(tmp_path, "砚秋.json", js_json(macro_card())))
    materials = load_stage_materials(Home(home), "砚秋")
    chosen = with_user(materials, "阿砚", "")
    assert chosen.user_name == "阿砚" and chosen.macros is not None
    assert chosen.macros("<user>与{{user}}") == "阿砚与阿砚"
    assert chosen.regex is materials.stage.regex and chosen.language == "中文"
