"""Regex-script edits stored as SillyTavern's regex editor stores them."""

from __future__ import annotations

import pytest

from peargarden.errors import BadInput, ConflictError, NotFound
from peargarden.formats.regex_edit import add_script, delete_script, update_script

SCRIPTS = [{"scriptName": "状态栏", "findRegex": "/a/g", "placement": [2], "x_future": 1}, "not a script"]


def test_an_edit_sets_only_the_named_fields() -> None:
    out = update_script(SCRIPTS, 0, {"trimStrings": "甲\r\n\r\n乙", "placement": [2, 1, 1], "minDepth": None,
                                     "maxDepth": -1, "substituteRegex": 2, "promptOnly": True})  # fmt: skip
    assert out[0] == {"scriptName": "状态栏", "findRegex": "/a/g", "placement": [1, 2], "x_future": 1,
                      "trimStrings": ["甲", "乙"], "minDepth": None, "maxDepth": -1, "substituteRegex": 2,
                      "promptOnly": True}  # fmt: skip
    assert out[1] == "not a script" and SCRIPTS[0]["placement"] == [2]


@pytest.mark.parametrize(
    "changes",
    [{"findRegex": "/(/g"}, {"placement": [4]}, {"minDepth": -2}, {"substituteRegex": 3}, {"what": 1},
     {"disabled": "yes"}],
)
def test_bad_values_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(BadInput):
        update_script(SCRIPTS, 0, changes)


def test_add_and_delete() -> None:
    out = add_script(SCRIPTS, {"scriptName": "新", "findRegex": "雨"})
    assert out[2]["scriptName"] == "新" and out[2]["runOnEdit"] is True and out[2]["placement"] == []
    assert list(out[2])[:4] == ["id", "scriptName", "findRegex", "replaceString"]
    with pytest.raises(BadInput):
        add_script(SCRIPTS, {"findRegex": "雨"})  # a script needs a name
    assert delete_script(out, 0, "状态栏")[0] == "not a script"
    with pytest.raises(ConflictError):
        delete_script(out, 0, "别的")
    with pytest.raises(NotFound):
        update_script(SCRIPTS, 1, {"disabled": True})
