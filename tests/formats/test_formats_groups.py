"""SillyTavern group files (``groups/<id>.json``) and group chats (``group chats/<id>.jsonl``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.errors import FormatError
from peargarden.formats import read_chat_jsonl, write_chat_jsonl
from peargarden.formats.groups import (
    GroupFile,
    avatar_thumbnail,
    greeting_message,
    is_group_object,
    js_number_text,
    js_pretty,
    message_author,
    new_group,
    read_group,
    reply_message,
    round_id,
    with_first_swipe,
    write_group,
)

CASES = Path(__file__).resolve().parents[1] / "tavern" / "oracle_cases_118_group"
GROUP_FILES = sorted(CASES.glob("*/group*.json"))
CHAT_FILES = sorted(CASES.glob("*/*chat*.jsonl"))

CHINESE_GROUP = {
    "id": "1764000000001",
    "name": "栖水镇茶馆",
    "members": ["林月.png", "周明.png", "小桃.png"],
    "avatar_url": "img/ai4.png",
    "allow_self_responses": True,
    "activation_strategy": 3,
    "generation_mode": 2,
    "disabled_members": ["小桃.png"],
    "chat_id": "栖水镇茶馆 - 第一回",
    "chats": ["栖水镇茶馆 - 第一回"],
    "generation_mode_join_prefix": "【{{char}}的<FIELDNAME>】\n",
    "generation_mode_join_suffix": "",
    "未知字段": {"保留": [1, 2.5, None]},
    "date_added": 1796255931564.0786,
}


@pytest.mark.parametrize("path", GROUP_FILES, ids=[f"{p.parent.name}/{p.name}" for p in GROUP_FILES])
def test_recorded_group_files_round_trip_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    assert write_group(read_group(data, path.name)) == data


@pytest.mark.parametrize("path", CHAT_FILES, ids=[f"{p.parent.name}/{p.name}" for p in CHAT_FILES])
def test_recorded_group_chats_round_trip_byte_for_byte(path: Path) -> None:
    data = path.read_bytes()
    chat = read_chat_jsonl(data, path.name)
    assert chat.style == "1.18"
    assert write_chat_jsonl(chat) == data


def test_group_fields_are_read_and_unknown_ones_kept() -> None:
    data = json.dumps(CHINESE_GROUP, ensure_ascii=False, indent=4).encode("utf-8")
    group = read_group(data, "groups/1764000000001.json")
    assert group.id == "1764000000001"
    assert group.name == "栖水镇茶馆"
    assert group.members == ["林月.png", "周明.png", "小桃.png"]
    assert group.disabled_members == ["小桃.png"]
    assert (group.activation_strategy, group.generation_mode) == (3, 2)
    assert group.chat_id == "栖水镇茶馆 - 第一回" and group.chats == ["栖水镇茶馆 - 第一回"]
    assert write_group(group) == data  # JSON.stringify(…, null, 4) is what json.dumps(indent=4) writes here
    assert is_group_object(group.raw)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"members": "林月.png"}, "members"),
        ({"members": ["林月.png", 3]}, "members"),
        ({"id": ""}, "id"),
        ({"disabled_members": [None]}, "disabled_members"),
        ({"activation_strategy": 7}, "activation_strategy"),
        ({"generation_mode": True}, "generation_mode"),
        ({"generation_mode_join_prefix": ["x"]}, "generation_mode_join_prefix"),
    ],
)
def test_a_bad_group_file_is_one_error_naming_the_file_and_field(change: dict[str, object], field: str) -> None:
    data = json.dumps({**CHINESE_GROUP, **change}, ensure_ascii=False).encode("utf-8")
    with pytest.raises(FormatError) as error:
        read_group(data, "groups/坏的群.json")
    message = str(error.value)
    assert "坏的群.json" in message and field in message and "\n" not in message


def test_a_group_file_that_is_not_json_says_so() -> None:
    with pytest.raises(FormatError) as error:
        read_group("{不是 JSON".encode(), "groups/坏.json")
    assert "坏.json" in str(error.value)


def test_a_new_group_is_what_sillytavern_creates() -> None:
    group = new_group("1764000000002", "雨夜", ["林月.png", "周明.png"], chat_id="雨夜 - 1")
    assert list(group.raw) == [
        "id",
        "name",
        "members",
        "avatar_url",
        "allow_self_responses",
        "hideMutedSprites",
        "activation_strategy",
        "generation_mode",
        "disabled_members",
        "fav",
        "chat_id",
        "chats",
        "auto_mode_delay",
        "generation_mode_join_prefix",
        "generation_mode_join_suffix",
    ]
    again = read_group(write_group(group), "g.json")
    assert again.raw == group.raw
    assert new_group("1", "x", ["a.png"], chat_id="c", activation_strategy=1).activation_strategy == 1


def test_thumbnail_and_message_fields_of_a_group_chat() -> None:
    assert avatar_thumbnail("Lin Yue.png") == "/thumbnail?type=avatar&file=Lin%20Yue.png"
    assert avatar_thumbnail("林月 (1).png") == "/thumbnail?type=avatar&file=%E6%9E%97%E6%9C%88%20(1).png"
    message = {"name": "林月", "mes": "欢迎", "original_avatar": "林月.png", "extra": {"gen_id": 1796255912890}}
    assert message_author(message) == "林月.png"
    assert round_id(message) == 1796255912890
    assert message_author({"name": "小明", "mes": "你好"}) == "" and round_id({"mes": ""}) is None


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1796255931564.0786, "1796255931564.0786"),
        (2.0, "2"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"),
        (0.00001234, "0.00001234"),
        (123456789012345680000.0, "123456789012345680000"),
        (float("nan"), "null"),
    ],
)
def test_numbers_are_written_as_javascript_writes_them(number: float, text: str) -> None:
    assert js_number_text(number) == text


@settings(max_examples=examples(200))
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_javascript_numbers_read_back_to_the_same_float(number: float) -> None:
    text = js_number_text(number)
    assert float(text) == number or (number == 0 and float(text) == 0)
    assert "e" not in text or abs(number) >= 1e21 or abs(number) < 1e-6


def test_pretty_printing_keeps_nesting_and_lone_surrogates() -> None:
    value = {"a": [], "b": {}, "c": [1, {"名": "\ud800"}], "d": math.pi}
    text = js_pretty(value)
    assert text.startswith('{\n    "a": [],\n    "b": {},\n    "c": [\n        1,')
    assert "\\ud800" in text
    text.encode("utf-8")  # always encodable


def test_group_file_keeps_a_raw_dict() -> None:
    raw = {"id": 5, "members": ["a.png"]}
    assert GroupFile(raw).id == "5"
    assert GroupFile({"id": True, "members": []}).id == ""


def test_new_messages_have_sillytaverns_keys_in_its_order() -> None:
    """Built from a recorded chat's values, a greeting and a reply are those very lines."""
    lines = (CASES / "61-group-swap-list-fresh-chat" / "chat_after.jsonl").read_text(encoding="utf-8").splitlines()
    greeting, reply = json.loads(lines[1]), json.loads(lines[4])
    built = with_first_swipe(
        greeting_message(
            greeting["name"],
            greeting["original_avatar"],
            greeting["mes"],
            send_date=greeting["send_date"],
            gen_id=greeting["extra"]["gen_id"],
        )
    )
    assert json.dumps(built, ensure_ascii=False) == json.dumps(greeting, ensure_ascii=False)
    made = reply_message(
        reply["name"],
        reply["original_avatar"],
        reply["mes"],
        send_date=reply["send_date"],
        gen_id=reply["extra"]["gen_id"],
        extra={k: v for k, v in reply["extra"].items() if k != "gen_id"},
        title=reply["title"],
        gen_started=reply["gen_started"],
        gen_finished=reply["gen_finished"],
    )
    made = with_first_swipe(made, "gen_started", "gen_finished")
    assert json.dumps(made, ensure_ascii=False) == json.dumps(reply, ensure_ascii=False)
