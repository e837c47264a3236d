"""A card name with bidirectional-text controls (issue 32, point 8): a right-to-left override would
make a folder listing show the name backwards from it ("卡\u202egnp.exe" shows as "卡exe.png"); the
folder name leaves them out, the card keeps its name as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit import workspace as wkit
from kit.cli import pear_in_process as pear
from peargarden.workspace.home import sanitize_name

CONTROLS = ["\u202e", "\u202d", "\u202a", "\u202b", "\u202c", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e",
            "\u200f", "\u061c"]  # fmt: skip


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_bidi_controls_are_left_out_of_a_folder_name(control: str) -> None:
    assert sanitize_name(f"青{control}梧{control}") == "青梧"


def test_an_imported_card_named_with_an_override_gets_a_plain_folder(tmp_path: Path) -> None:
    home = tmp_path / "数据"
    name = "沈砚\u202egnp.exe"
    card = tmp_path / "卡.png"
    card.write_bytes(wkit.card_png(wkit.v2_card(name)))
    pear(home, "import", card, check=True)
    folders = sorted(p.name for p in (home / "cards").iterdir())
    assert "沈砚gnp.exe" in folders and not any("\u202e" in folder for folder in folders)
    listed = json.loads(pear(home, "cards", "--json", check=True).stdout)
    assert {row["folder"]: row["name"] for row in listed}["沈砚gnp.exe"] == name
