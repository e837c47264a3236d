"""Files read from the data folder by hand-editable name (补充设定集.json, tavern cases): decoded as
imports are, so a file saved by Notepad reads the same as one our code wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.errors import FormatError
from peargarden.workspace.inputs import read_json

BOOK = {"entries": {"0": {"uid": 0, "key": ["雨巷"], "content": "一条长长的雨巷。"}}}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16"])
def test_a_hand_saved_json_file_reads_in_its_encoding(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "补充设定集.json"
    path.write_bytes(json.dumps(BOOK, ensure_ascii=False, indent=2).replace("\n", "\r\n").encode(encoding))
    assert read_json(path) == BOOK


def test_a_gbk_file_names_itself_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "补充设定集.json"
    path.write_bytes(json.dumps(BOOK, ensure_ascii=False).encode("gbk"))
    with pytest.raises(FormatError) as info:
        read_json(path)
    assert "补充设定集.json" in str(info.value) and "GBK" in str(info.value) and "\n" not in str(info.value)
