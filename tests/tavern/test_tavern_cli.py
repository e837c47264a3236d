"""``pear tavern replay`` end to end: stdout is exactly one JSON object, warnings go to stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.cli import main

CASES = Path(__file__).parent / "oracle_cases"


def test_replay_prints_the_request_body(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES / "47-preset-no-chathistory-marker"
    main(["tavern", "replay", str(case)])
    out = capsys.readouterr()
    assert json.loads(out.out) == json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert "chatHistory" in out.err  # the missing marker is reported, not silently swallowed


def test_replay_ledger_lists_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES / "24-budget-ctx1400"
    main(["tavern", "replay", "--ledger", str(case)])
    out = capsys.readouterr().out
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))["messages"]
    rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == len(expected)
    assert "chatHistory-42" in out and "newMainChat" in out


def test_replay_of_a_missing_folder_is_one_readable_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["tavern", "replay", str(tmp_path / "没有这个案例")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("pear: ") and len(err.strip().splitlines()) == 1


def _import_card(capsys: pytest.CaptureFixture[str]) -> None:
    main(["init"])
    main(["import", str(CASES / "10-charnote-and-an-depth4" / "card.json")])
    capsys.readouterr()


def test_assemble_for_a_card_in_the_data_folder(capsys: pytest.CaptureFixture[str]) -> None:
    _import_card(capsys)
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "今天有什么茶？{{char}}"])
    body = json.loads(capsys.readouterr().out)
    messages = body["messages"]
    assert messages[0]["content"].startswith("Write Lin Yue's next reply")
    assert messages[-1] == {"role": "user", "content": "今天有什么茶？Lin Yue"}
    assert messages[-2]["role"] == "assistant"  # the greeting of a fresh chat
    assert any("林悦其实很想带" in m["content"] for m in messages)  # the character's note at depth 4
    assert body["max_tokens"] == 300


def test_set_controls_change_the_next_assembly(capsys: pytest.CaptureFixture[str]) -> None:
    _import_card(capsys)
    for key, value in [
        ("context", "1200"),
        ("note.prompt", "[作者注：雨越下越大]"),
        ("note.depth", "0"),
        ("prompt.enhanceDefinitions", "on"),
        ("persona", "{{user}}是大学生"),
        ("persona_position", "prompt"),
    ]:
        main(["tavern", "set", key, value, "--card", "Lin Yue"])
    capsys.readouterr()
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好", "--ledger"])
    out = capsys.readouterr().out
    assert "预算 900" in out
    assert "enhanceDefinitions" in out and "personaDescription" in out
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好"])
    messages = json.loads(capsys.readouterr().out)["messages"]
    assert messages[-1] == {"role": "system", "content": "[作者注：雨越下越大]"}


def test_set_rejects_unknown_keys_and_bad_values(capsys: pytest.CaptureFixture[str]) -> None:
    _import_card(capsys)
    for args in (["不存在", "1"], ["context", "很多"], ["prompt.幽灵", "on"], ["note.role", "narrator"]):
        with pytest.raises(SystemExit) as done:
            main(["tavern", "set", *args, "--card", "Lin Yue"])
        assert done.value.code == 2
        assert capsys.readouterr().err.startswith("pear: ")


def test_replay_reads_the_card_png_when_there_is_no_card_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    import struct
    import zlib

    from peargarden.formats import card_from_object, card_to_png

    case = CASES / "01-minimal"
    target = tmp_path / "案例"
    shutil.copytree(case, target)
    card = card_from_object(json.loads((target / "card.json").read_text(encoding="utf-8")), "card.json")
    (target / "card.json").unlink()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixel = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixel += chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b"")
    (target / "card.png").write_bytes(card_to_png(card, pixel, "v2"))
    main(["tavern", "replay", str(target)])
    assert json.loads(capsys.readouterr().out) == json.loads((case / "expected.json").read_text(encoding="utf-8"))


def test_assemble_with_a_stored_chat(capsys: pytest.CaptureFixture[str]) -> None:
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.chats import ChatFile
    from peargarden.workspace.home import Home

    _import_card(capsys)
    folder = open_card(Home.resolve(None), "Lin Yue")
    chat = ChatFile.create(folder.chats_dir, "c1")
    chat.append_message({"role": "assistant", "content": "欢迎光临，{{user}}！"})
    chat.append_message({"role": "user", "content": "来一壶龙井。"})
    chat.append_message({"role": "assistant", "content": "好的，稍等。"})
    main(["tavern", "set", "note.prompt", "[作者注：只在这段对话]", "--card", "Lin Yue", "--chat", "c1"])
    main(["tavern", "set", "note.depth", "1", "--card", "Lin Yue", "--chat", "c1"])
    capsys.readouterr()
    main(["tavern", "assemble", "--card", "Lin Yue", "--chat", "c1", "--message", "谢谢"])
    messages = json.loads(capsys.readouterr().out)["messages"]
    tail = [(m["role"], m["content"]) for m in messages[-5:]]
    assert tail == [
        ("assistant", "欢迎光临，旅人！"),
        ("user", "来一壶龙井。"),
        ("assistant", "好的，稍等。"),
        ("system", "[作者注：只在这段对话]"),
        ("user", "谢谢"),
    ]


CASES_118 = Path(__file__).parent / "oracle_cases_118"


def test_replay_follows_the_case_version_unless_told(capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES_118 / "18-wi-character-book-embedded"
    main(["tavern", "replay", str(case)])
    assert json.loads(capsys.readouterr().out) == json.loads((case / "expected.json").read_text(encoding="utf-8"))
    main(["tavern", "replay", "--st-version", "1.12", str(case)])
    old = CASES / "18-wi-character-book-embedded" / "expected.json"
    assert json.loads(capsys.readouterr().out) == json.loads(old.read_text(encoding="utf-8"))


def test_replay_rejects_an_unknown_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["tavern", "replay", "--st-version", "1.9", str(CASES / "01-minimal")])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("pear: ") and "1.9" in err and len(err.strip().splitlines()) == 1


def test_assemble_uses_the_version_of_config_card_and_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from peargarden.workspace.cards import open_card
    from peargarden.workspace.home import Home

    _import_card(capsys)
    folder = open_card(Home.resolve(None), "Lin Yue")
    raw = str(folder.load_card().data.get("scenario"))
    scenario = raw.replace("{{user}}", "旅人").replace("{{char}}", "Lin Yue")
    wrapped = f"[Circumstances and context of the dialogue: {scenario}]"
    # A new data folder's config.toml says 1.18: the scenario goes out bare ("{{scenario}}" format).
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好"])
    body = json.loads(capsys.readouterr().out)
    contents = [m["content"] for m in body["messages"]]
    assert scenario in contents and wrapped not in contents
    assert "logit_bias" not in body
    # --st-version overrides it for one call.
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好", "--st-version", "1.12"])
    body = json.loads(capsys.readouterr().out)
    assert wrapped in [m["content"] for m in body["messages"]] and body["logit_bias"] == {}
    # 卡.json's st_version wins over config.toml.
    settings = folder.settings()
    folder.write_settings({**settings, "st_version": "1.12"})
    main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好"])
    assert wrapped in [m["content"] for m in json.loads(capsys.readouterr().out)["messages"]]
    folder.write_settings({**settings, "st_version": "2.0"})
    with pytest.raises(SystemExit) as done:
        main(["tavern", "assemble", "--card", "Lin Yue", "--message", "你好"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "卡.json" in err and "st_version" in err


def test_a_118_preset_imports_verbatim_and_its_triggers_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from peargarden.workspace.home import Home

    _import_card(capsys)
    source = tmp_path / "触发预设.json"
    raw = (CASES_118 / "56-pm-injection-trigger-send-then-swipe" / "preset.json").read_bytes()
    source.write_bytes(raw)
    main(["import", str(source)])
    capsys.readouterr()
    assert (Home.resolve(None).presets_dir / "触发预设.json").read_bytes() == raw  # kept byte for byte
    main(["tavern", "assemble", "--card", "Lin Yue", "--preset", "触发预设", "--message", "你好"])
    contents = [m["content"] for m in json.loads(capsys.readouterr().out)["messages"]]
    assert "[Tnormal: only for normal]" in contents
    assert "[Tswipe: only for swipe]" not in contents  # injection_trigger: not for a normal send
    main(
        ["tavern", "assemble", "--card", "Lin Yue", "--preset", "触发预设", "--message", "你好", "--st-version", "1.12"]
    )
    contents = [m["content"] for m in json.loads(capsys.readouterr().out)["messages"]]
    assert "[Tswipe: only for swipe]" in contents  # 1.12 knows no triggers
