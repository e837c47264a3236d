"""pear init / import / export / cards / lorebook through the CLI entry point.

Most tests call ``peargarden.cli.main`` in-process (many commands each); ``pear init`` runs as a real
subprocess here and every bad input in test_cli_bad_input.py does too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from kit import workspace as wkit
from kit.cli import pear_in_process as pear_here
from kit.cli import pear_process as pear
from kit.thirdparty import thirdparty
from peargarden.formats import card_from_object, read_card

ORACLE_PNGS: list[Path] = []
if wkit.ORACLE_CASES.is_dir():
    # Many oracle cases share one card; one of each distinct file is enough.
    seen: set[str] = set()
    for path in sorted(wkit.ORACLE_CASES.glob("*/card.png")) + sorted(wkit.ORACLE_CASES.glob("*/card.json")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            ORACLE_PNGS.append(path)

# Exporting as V3 may add the fields V3 requires, with their empty values; nothing else may change.
V3_REQUIRED_DEFAULTS: dict[str, Any] = {"group_only_greetings": []}


def _cards(home: Path) -> list[dict[str, Any]]:
    result = pear_here(home, "cards", "--json")
    assert result.returncode == 0, result.stderr
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def _imported_folder(home: Path, before: set[str]) -> str:
    (folder,) = [row["folder"] for row in _cards(home) if row["folder"] not in before]
    return str(folder)


def _assert_same_data(original: dict[str, Any], exported: dict[str, Any], spec: str, fmt: str) -> None:
    if fmt == "charx" and "assets" in exported and exported.get("assets") != original.get("assets"):
        # A CHARX carries the card's picture inside: its main icon now points into the archive.
        icons = [a for a in exported.pop("assets") if a.get("type") == "icon" and a.get("name") == "main"]
        assert icons and icons[0]["uri"].startswith("embeded://")
        original = {k: v for k, v in original.items() if k != "assets"}
    added = {k: v for k, v in exported.items() if k not in original}
    if spec == "v3":
        assert all(V3_REQUIRED_DEFAULTS.get(k, object()) == v for k, v in added.items()), added
        exported = {k: v for k, v in exported.items() if k in original}
    assert exported == original
    assert exported.get("extensions") == original.get("extensions")


def _round_trip(home: Path, source: Path, tmp_path: Path) -> None:
    original = read_card(source.read_bytes(), source.name)
    result = pear_here(home, "import", source)
    assert result.returncode == 0, result.stderr
    folder = _imported_folder(home, {"青梧"})
    own = "v3" if original.source_spec == "v3" else "v2"
    exports = [
        ("png", None, own),
        ("json", None, own),
        ("charx", None, "v3"),
        ("json", "v2", "v2"),
        ("json", "v3", "v3"),
        ("png", "v2", "v2"),
    ]
    for fmt, spec, effective in exports:
        out = tmp_path / f"out-{fmt}-{spec}.{fmt}"
        args = ["export", "card", folder, "--format", fmt, "-o", out] + (["--spec", spec] if spec else [])
        result = pear_here(home, *args)
        assert result.returncode == 0, result.stderr
        back = read_card(out.read_bytes(), out.name)
        if fmt == "png":
            # SillyTavern's way: chara holds the V2 view, ccv3 (when written) the V3 view.
            chunks = wkit.png_card_payloads(out.read_bytes())
            assert chunks["chara"]["spec"] == "chara_card_v2"
            _assert_same_data(original.data, card_from_object(chunks["chara"], "chara").data, "v2", fmt)
            if "ccv3" in chunks or effective == "v3":
                assert chunks["ccv3"]["spec"] == "chara_card_v3"
                _assert_same_data(original.data, card_from_object(chunks["ccv3"], "ccv3").data, "v3", fmt)
            continue
        assert back.source_spec == effective
        _assert_same_data(original.data, back.data, effective, fmt)


@pytest.mark.parametrize(
    "parts",
    [("sillytavern-1.12.6", "default_Seraphina.png"), ("sillytavern-1.18.0", "default_Seraphina.png")],
    ids=["st-1.12.6", "st-1.18.0"],
)
def test_sillytavern_cards_round_trip(parts: tuple[str, str], tmp_path: Path) -> None:
    _round_trip(tmp_path / "home", thirdparty(*parts), tmp_path)


@pytest.mark.parametrize("source", ORACLE_PNGS or [None], ids=lambda p: f"{p.parent.name}-{p.name}" if p else "absent")
def test_oracle_cards_round_trip(source: Path | None, tmp_path: Path) -> None:
    if source is None:
        pytest.skip("oracle cases not available")
    _round_trip(tmp_path / "home", source, tmp_path)


def test_own_card_keeps_unknown_fields_in_every_format(tmp_path: Path) -> None:
    home = tmp_path / "home"
    card = wkit.v2_card("说书人", x_未知字段={"保留": True}, character_book=wkit.embedded_book())
    card["顶层未知"] = "也要保留"
    source = tmp_path / "说书人.json"
    source.write_text(json.dumps(card, ensure_ascii=False), encoding="utf-8")
    _round_trip(home, source, tmp_path)
    out = tmp_path / "again.json"
    assert pear_here(home, "export", "card", "说书人", "--format", "json", "-o", out).returncode == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["data"]["extensions"]["某插件"] == {"嵌套": [1, "二", {"三": None}]}
    assert exported["data"]["x_未知字段"] == {"保留": True}
    assert exported["data"]["character_book"]["entries"][0]["extensions"]["自定义"] == "保留"


def test_init_is_idempotent_and_keeps_user_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = pear(home, "init")
    assert first.returncode == 0, first.stderr
    assert "SYSTEM.md" in first.stdout and "cards/青梧/青梧.png" in first.stdout
    (home / "SYSTEM.md").write_text("用户改过的底座\n", encoding="utf-8")
    before = wkit.tree_digest(home)
    second = pear(home, "init")
    assert second.returncode == 0
    assert "already set up" in second.stdout
    assert wkit.tree_digest(home) == before
    assert (home / "SYSTEM.md").read_text(encoding="utf-8") == "用户改过的底座\n"
    assert [row["folder"] for row in _cards(home)] == ["青梧"]


@pytest.mark.parametrize("mode", ["mount", "keep", "skip"])
def test_embedded_book_modes(mode: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = tmp_path / "说书人.png"
    source.write_bytes(wkit.card_png(wkit.v2_card("说书人", character_book=wkit.embedded_book("茶馆旧事"))))
    result = pear_here(home, "import", source, "--book", mode)
    assert result.returncode == 0, result.stderr
    book = home / "library" / "lorebooks" / "茶馆旧事.json"
    settings = json.loads((home / "cards" / "说书人" / "卡.json").read_text(encoding="utf-8"))
    assert (home / "cards" / "说书人" / "说书人.png").read_bytes() == source.read_bytes()
    if mode == "skip":
        assert not book.exists()
    else:
        entries = json.loads(book.read_text(encoding="utf-8"))["entries"]
        (entry,) = entries.values()
        assert entry["key"] == ["醒木", "说书"] and entry["order"] == 10
    assert settings.get("lorebooks", []) == (["茶馆旧事"] if mode == "mount" else [])


def test_library_files_and_chats(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    lorebook = tmp_path / "江湖.json"
    lorebook.write_text('{"entries": {"0": {"uid": 0, "key": ["江湖"], "content": "江湖路远。"}}}', encoding="utf-8")
    preset = tmp_path / "我的预设.json"
    preset_bytes = b'{\n\t"temperature": 0.9,  "prompts": [],\n"prompt_order": []   }'
    preset.write_bytes(preset_bytes)
    chat = tmp_path / "青梧 - 2026-11-29.jsonl"
    chat.write_text(
        json.dumps(
            {"user_name": "旅人", "character_name": "青梧", "create_date": "2026-11-29@22h38m27s", "chat_metadata": {}},
            ensure_ascii=False,
        )
        + "\n"
        + json.dumps({"name": "青梧", "is_user": False, "mes": "雨还在下。"}, ensure_ascii=False),
        encoding="utf-8",
    )
    result = pear_here(home, "import", lorebook, preset, chat, "--card", "青梧")
    assert result.returncode == 0, result.stderr
    assert (home / "library" / "lorebooks" / "江湖.json").read_bytes() == lorebook.read_bytes()
    assert (home / "library" / "presets" / "我的预设.json").read_bytes() == preset_bytes
    # The chat is a session at once (nothing else kept of it), and an export gives the lines back
    # (written as SillyTavern writes JSON: this file's spaces are not kept).
    (stored,) = (home / "cards" / "青梧" / "chats").glob("*/*")
    assert stored.name == "session.jsonl"
    out = tmp_path / "导出.jsonl"
    assert pear_here(home, "sessions", "export", stored.parent.name, "-o", out).returncode == 0
    lines = [json.loads(line) for line in chat.read_text(encoding="utf-8").splitlines()]
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == lines
    # With --card, an imported lorebook is mounted on that card, after the ones already there.
    settings = json.loads((home / "cards" / "青梧" / "卡.json").read_text(encoding="utf-8"))
    assert settings["lorebooks"] == ["栖水镇", "江湖"]
    # The same lorebook again is recognised, not duplicated as 江湖-2.
    again = pear_here(home, "import", lorebook)
    assert again.returncode == 0
    assert not (home / "library" / "lorebooks" / "江湖-2.json").exists()


def test_card_and_its_chat_in_one_run_and_duplicates(tmp_path: Path) -> None:
    home = tmp_path / "home"
    card = tmp_path / "沈砚.png"
    card.write_bytes(wkit.card_png(wkit.v2_card("沈砚")))
    chat = tmp_path / "第一夜.jsonl"
    chat.write_text(
        json.dumps({"name": "沈砚", "is_user": False, "mes": "你来了。"}, ensure_ascii=False), encoding="utf-8"
    )
    result = pear_here(home, "import", card, chat, "--card", "沈砚")
    assert result.returncode == 0, result.stderr
    assert (home / "cards" / "沈砚" / "chats" / "第一夜" / "session.jsonl").is_file()
    assert pear_here(home, "import", card).returncode == 0
    assert pear_here(home, "import", card).returncode == 0
    folders = sorted(row["folder"] for row in _cards(home))
    assert folders == ["沈砚", "沈砚-2", "沈砚-3", "青梧"]


def test_many_files_at_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    files = []
    for index in range(7):
        path = tmp_path / f"角色{index}.png"
        path.write_bytes(wkit.card_png(wkit.v2_card(f"角色{index}")))
        files.append(path)
    result = pear_here(home, "import", *files)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stdout.strip().splitlines()) == 7
    assert len(_cards(home)) == 8


def test_lorebook_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    listed = json.loads(pear_here(home, "lorebook", "list", "--json").stdout)
    assert listed == [{"name": "栖水镇", "file": "library/lorebooks/栖水镇.json", "entries": 7, "mounted_by": ["青梧"]}]
    assert pear_here(home, "lorebook", "unmount", "栖水镇", "--card", "青梧").returncode == 0
    assert json.loads(pear_here(home, "lorebook", "list", "--json").stdout)[0]["mounted_by"] == []
    assert pear_here(home, "lorebook", "mount", "栖水镇", "--card", "青梧").returncode == 0
    assert _cards(home)[0]["lorebooks"] == ["栖水镇"]
    before = wkit.tree_digest(home)
    for args in (
        ["mount", "没有这本", "--card", "青梧"],
        ["mount", "栖水镇", "--card", "没有这张卡"],
        ["unmount", "栖水镇", "--card", "？？"],
    ):
        failed = pear_here(home, "lorebook", *args)
        assert failed.returncode == 2
        assert len(failed.stderr.strip().splitlines()) == 1 and "Traceback" not in failed.stderr
    assert wkit.tree_digest(home) == before


def test_export_lorebook_and_to_a_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert pear_here(home, "init").returncode == 0
    out = tmp_path / "out"
    out.mkdir()
    assert pear_here(home, "export", "lorebook", "栖水镇", "-o", out).returncode == 0
    assert (out / "栖水镇.json").read_bytes() == (home / "library" / "lorebooks" / "栖水镇.json").read_bytes()
    assert pear_here(home, "export", "card", "青梧", "--format", "png", "-o", out).returncode == 0
    assert read_card((out / "青梧.png").read_bytes(), "青梧.png").name == "青梧"
    failed = pear_here(home, "export", "card", "青梧", "--format", "charx", "--spec", "v2", "-o", out)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    failed = pear_here(home, "export", "card", "不存在", "--format", "json", "-o", out)
    assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1


def test_charx_import_keeps_its_picture(tmp_path: Path) -> None:
    first, second = tmp_path / "一", tmp_path / "二"
    assert pear_here(first, "init").returncode == 0
    charx = tmp_path / "青梧.charx"
    assert pear_here(first, "export", "card", "青梧", "--format", "charx", "-o", charx).returncode == 0
    original = read_card((first / "cards" / "青梧" / "青梧.png").read_bytes(), "青梧.png")
    result = pear_here(second, "import", charx)
    assert result.returncode == 0, result.stderr
    # The data folder was seeded first, so the imported 青梧 became 青梧-2.
    stored = second / "cards" / "青梧-2" / "青梧-2.charx"
    assert stored.read_bytes() == charx.read_bytes()
    png = tmp_path / "回来.png"
    assert pear_here(second, "export", "card", "青梧-2", "--format", "png", "-o", png).returncode == 0
    back = read_card(png.read_bytes(), png.name)
    assert back.data["first_mes"] == original.data["first_mes"]
    # The picture inside the CHARX came back out as the PNG's image.
    from PIL import Image

    with Image.open(png) as image:
        assert image.size == (400, 600)


def test_first_import_sets_up_the_data_folder_without_clobbering_it(tmp_path: Path) -> None:
    home = tmp_path / "新家"
    lorebook = tmp_path / "江湖.json"
    lorebook.write_text('{"entries": {"0": {"uid": 0, "key": ["江湖"], "content": "江湖路远。"}}}', encoding="utf-8")
    same_as_bundled = tmp_path / "栖水镇.json"
    same_as_bundled.write_bytes(wkit.bundled_lorebook())
    result = pear_here(home, "import", lorebook, same_as_bundled, "--card", "青梧")
    assert result.returncode == 0, result.stderr
    assert (home / "config.toml").is_file() and (home / "cards" / "青梧" / "青梧.png").is_file()
    settings = json.loads((home / "cards" / "青梧" / "卡.json").read_text(encoding="utf-8"))
    assert settings["lorebooks"] == ["栖水镇", "江湖"]
    assert sorted(p.name for p in (home / "library" / "lorebooks").iterdir()) == ["栖水镇.json", "江湖.json"]


def _linked_card(folder: Path, name: str, world: str) -> Path:
    """A card JSON whose ``data.extensions.world`` names *world* (SillyTavern's linked book), none embedded."""
    data = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": f"{name}是茶馆的老板娘。", "first_mes": "欢迎光临。",
        "extensions": {"world": world}}}  # fmt: skip
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _book(path: Path, content: str) -> Path:
    entry = {"uid": 0, "key": ["茶"], "content": content, "constant": True, "order": 100, "position": 0}
    path.write_text(json.dumps({"entries": {"0": entry}}, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_card_and_the_book_it_links_imported_together_are_mounted(tmp_path: Path) -> None:
    """Issue 46, item 8: `pear import 卡 书.json` left the book unmounted (tavern mode then warned
    「找不到世界书」 at every beat, and an MVU card's [initvar] there never seeded)."""
    home = tmp_path / "home"
    card = _linked_card(tmp_path, "林月", "茶馆旧事")
    book = _book(tmp_path / "茶馆旧事.json", "茶馆开在西湖边，已有三十年。")
    done = pear_here(home, "import", card, book)
    assert done.returncode == 0, done.stderr
    line = "世界书\t茶馆旧事.json → library/lorebooks/茶馆旧事.json（已挂载到卡「林月」（卡指定的世界书））"
    assert line in done.stdout.splitlines()
    settings = json.loads((home / "cards" / "林月" / "卡.json").read_text(encoding="utf-8"))
    assert settings["lorebooks"] == ["茶馆旧事"]
    assembled = pear_here(home, "tavern", "assemble", "--card", "林月", "--message", "来壶茶")
    assert assembled.returncode == 0 and "找不到世界书" not in assembled.stdout + assembled.stderr
    assert "茶馆开在西湖边，已有三十年。" in assembled.stdout


def test_a_linked_book_is_found_by_the_name_it_gives_itself_or_in_the_library_or_said_missing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    pear_here(home, "init", check=True)
    renamed = tmp_path / "下载的书.json"
    entries = {"0": {"uid": 0, "key": ["茶"], "content": "旧事。"}}
    renamed.write_text(json.dumps({"name": "茶馆旧事", "entries": entries}, ensure_ascii=False), encoding="utf-8")
    pear_here(home, "import", _linked_card(tmp_path, "林月", "茶馆旧事"), renamed, check=True)
    assert json.loads((home / "cards" / "林月" / "卡.json").read_text(encoding="utf-8"))["lorebooks"] == ["下载的书"]
    library = pear_here(home, "import", _linked_card(tmp_path, "周明", "栖水镇"), check=True)  # seeded by init
    assert "已挂载它指定的世界书「栖水镇」（库中已有）" in library.stdout
    assert json.loads((home / "cards" / "周明" / "卡.json").read_text(encoding="utf-8"))["lorebooks"] == ["栖水镇"]
    missing = pear_here(home, "import", _linked_card(tmp_path, "小桃", "无名书"), check=True)
    said = "它指定的世界书「无名书」不在这次导入里，库中也没有：用 pear import 无名书.json --card 小桃 导入并挂载"
    assert said in missing.stdout
