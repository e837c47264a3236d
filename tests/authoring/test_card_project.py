"""The card project 创作/: expand, edit two slots, apply writes only those, conflicts, syntax, undo."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from kit.cli import pear_in_process
from peargarden.errors import BadInput, ConflictError
from peargarden.formats import Card, card_to_png, read_card
from peargarden.modes.work.project import CardProject
from peargarden.workspace.cards import CardFolder
from peargarden.workspace.home import Home


def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (120, 160, 140)).save(buffer, "PNG")
    return buffer.getvalue()


def _card() -> Card:
    return Card.new(
        "青梧",
        description="听雨轩的年轻掌柜。",
        personality="温和，话少。",
        first_mes="雨夜，听雨轩的灯还亮着。",
        alternate_greetings=["清晨，渡口起了雾。", "午后，有客来访。"],
        character_book={
            "name": "栖水镇",
            "entries": [
                {"keys": ["怀瑾"], "content": "十年前离开的公子。", "comment": "怀瑾", "id": 1, "enabled": True},
                {"keys": ["渡口"], "content": "镇北的渡口。", "comment": "怀瑾", "id": 2, "enabled": True},
            ],
        },
        extensions={
            "regex_scripts": [{"scriptName": "去星号", "findRegex": "/\\*/g", "replaceString": ""}],
            "TavernHelper_scripts": [],
            "tavern_helper": {"scripts": [{"name": "状态栏", "content": "const 雨 = 1;\nconsole.log(雨);\n"}]},
            "某插件": {"保留": True},
        },
    )


@pytest.fixture
def folder(tmp_path: Path) -> CardFolder:
    home = Home(tmp_path / "home")
    card_dir = home.card_dir("青梧")
    card_dir.mkdir(parents=True)
    (card_dir / "青梧.png").write_bytes(card_to_png(_card(), _png()))
    return CardFolder(home, "青梧")


def _files(project: CardProject) -> dict[str, Path]:
    manifest = json.loads((project.root / "manifest.json").read_text(encoding="utf-8"))
    return {info["label"]: project.root / info["file"] for info in manifest["slots"].values()}


def test_expand_makes_one_file_per_slot(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    files = _files(project)
    for label in ("描述", "性格", "默认开场", "备选开场1", "备选开场2", "正则-去星号-匹配", "脚本-状态栏"):
        assert label in files
    manifest = json.loads((project.root / "manifest.json").read_text(encoding="utf-8"))
    lore = [info["file"] for info in manifest["slots"].values() if info["label"] == "世界书-怀瑾"]
    assert len(lore) == 2 and len(set(lore)) == 2  # same name, two identities, two files
    assert files["描述"].read_text(encoding="utf-8") == "听雨轩的年轻掌柜。"
    assert files["脚本-状态栏"].suffix == ".js"


def test_apply_writes_only_the_changed_slots(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    before = read_card((folder.path / "青梧.png").read_bytes(), "青梧.png")
    image_before = Image.open(folder.path / "青梧.png").tobytes()
    files = _files(project)
    files["性格"].write_text("温和，爱笑。", encoding="utf-8")
    files["备选开场2"].write_text("黄昏，雨停了。", encoding="utf-8")
    changes = project.apply()
    assert sorted(c.label for c in changes) == ["备选开场2", "性格"]
    after = read_card((folder.path / "青梧.png").read_bytes(), "青梧.png")
    assert after.data["personality"] == "温和，爱笑。"
    assert after.data["alternate_greetings"] == ["清晨，渡口起了雾。", "黄昏，雨停了。"]
    expected = before.copy()
    expected.data["personality"] = "温和，爱笑。"
    expected.data["alternate_greetings"][1] = "黄昏，雨停了。"
    assert after.data == expected.data  # nothing else moved, unknown extensions included
    assert after.data["extensions"]["某插件"] == {"保留": True}
    assert Image.open(folder.path / "青梧.png").tobytes() == image_before
    assert project.check().changes == []  # the project now matches the card


def test_nothing_changed_writes_nothing(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    card_file = folder.path / "青梧.png"
    stamp = card_file.stat().st_mtime_ns
    assert project.apply() == []
    assert card_file.stat().st_mtime_ns == stamp


def test_syntax_error_blocks_apply_with_line_and_column(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    card_bytes = (folder.path / "青梧.png").read_bytes()
    _files(project)["脚本-状态栏"].write_text("const 雨 = 1;\nfunction 坏( {\n", encoding="utf-8")
    report = project.check()
    assert report.problems and report.problems[0].line == 2
    with pytest.raises(BadInput, match=r":2:\d+"):
        project.apply()
    assert (folder.path / "青梧.png").read_bytes() == card_bytes


def test_a_script_that_imports_a_url_and_throws_is_syntactically_fine(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    script = 'import x from "https://example.invalid/a.js";\nthrow new Error("雨");\n'
    _files(project)["脚本-状态栏"].write_text(script, encoding="utf-8")
    assert project.check().problems == []


def test_card_changed_underneath_is_refused_with_the_conflict(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    _files(project)["性格"].write_text("冷淡。", encoding="utf-8")
    changed = _card()
    changed.data["description"] = "别人改过的描述。"
    (folder.path / "青梧.png").write_bytes(card_to_png(changed, _png()))
    with pytest.raises(ConflictError, match="描述") as error:
        project.apply()
    assert "性格" in str(error.value)
    assert read_card((folder.path / "青梧.png").read_bytes(), "x").data["personality"] == "温和，话少。"


def test_undo_puts_the_previous_bytes_back(folder: CardFolder) -> None:
    project = CardProject(folder)
    project.expand()
    original = (folder.path / "青梧.png").read_bytes()
    _files(project)["描述"].write_text("新的描述。", encoding="utf-8")
    project.apply()
    assert (folder.path / "青梧.png").read_bytes() != original
    project.undo()
    assert (folder.path / "青梧.png").read_bytes() == original
    assert _files(project)["描述"].read_text(encoding="utf-8") == "听雨轩的年轻掌柜。"


def test_cli_round_trip(folder: CardFolder) -> None:
    def pear(*args: str) -> subprocess.CompletedProcess[str]:
        return pear_in_process(folder.home.root, "card", *args)

    assert pear("expand", "青梧").returncode == 0
    project = CardProject(folder)
    _files(project)["正则-去星号-匹配"].write_text("/(未闭合/g", encoding="utf-8")
    check = pear("check", "青梧", "--json")
    assert check.returncode == 1 and json.loads(check.stdout)["problems"]
    applied = pear("apply", "青梧")
    assert applied.returncode == 2 and applied.stderr.count("\n") == 1
