"""SillyTavern chat JSONL: 1.12 and 1.18 headers, swipes, hidden/narrator messages, torn last line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.errors import FormatError
from peargarden.formats import (
    TavernChat,
    TavernMessage,
    detect_kind,
    format_create_date,
    format_send_date,
    parse_send_date,
    read_chat_jsonl,
    write_chat_jsonl,
)
from peargarden.formats._common import dumps_compact

DATA = Path(__file__).resolve().parents[1] / "data" / "formats"

HEADER_112 = (
    '{"user_name":"小明","character_name":"青梧","create_date":"2026-11-29@22h38m27s",'
    '"chat_metadata":{"note_prompt":"","timedWorldInfo":{"sticky":{},"cooldown":{}},"tainted":true}}'
)
HEADER_118 = '{"chat_metadata":{"integrity":"abc","变量":{"好感":3}},"user_name":"unused","character_name":"unused"}'
MESSAGES = [
    '{"name":"青梧","is_user":false,"is_system":false,"send_date":"November 29, 2026 10:38pm",'
    '"mes":"客官，外头雨大。","extra":{},"swipe_id":1,"swipes":["第一版","客官，外头雨大。"],'
    '"swipe_info":[{"send_date":"November 29, 2026 10:38pm","extra":{}},{"send_date":"x","extra":{}}]}',
    '{"name":"小明","is_user":true,"is_system":false,"send_date":"November 29, 2026 10:39pm",'
    '"mes":"那把伞……","extra":{"isSmallSys":false},"force_avatar":"User Avatars/user-default.png"}',
    '{"name":"旁白","is_user":false,"is_system":true,"send_date":"2026-05-03T12:00:00.000Z",'
    '"mes":"（雨停了）","extra":{"type":"narrator","未知":1}}',
]


@pytest.mark.parametrize(("header", "style"), [(HEADER_112, "1.12"), (HEADER_118, "1.18")])
def test_both_header_styles_round_trip_byte_for_byte(header: str, style: str) -> None:
    data = "\n".join([header, *MESSAGES]).encode("utf-8")
    assert detect_kind(data, "青梧 - 2026-11-29.jsonl") == "chat_jsonl"
    chat = read_chat_jsonl(data, "c.jsonl")
    assert chat.style == style and chat.torn_line is None
    assert write_chat_jsonl(chat) == data
    first, user, narrator = chat.messages
    assert first.swipes == ["第一版", "客官，外头雨大。"] and first.swipe_id == 1 and first.mes == "客官，外头雨大。"
    assert user.is_user and user.name == "小明" and user.extra == {"isSmallSys": False}
    assert narrator.is_system and narrator.is_narrator and narrator.extra["未知"] == 1


def test_header_fields() -> None:
    chat = read_chat_jsonl("\n".join([HEADER_112, *MESSAGES]).encode(), "c.jsonl")
    assert (chat.user_name, chat.character_name, chat.create_date) == ("小明", "青梧", "2026-11-29@22h38m27s")
    assert chat.chat_metadata["tainted"] is True


def test_torn_last_line_is_reported_and_dropped() -> None:
    data = "\n".join([HEADER_118, *MESSAGES[:2], MESSAGES[2][:30]]).encode("utf-8")
    chat = read_chat_jsonl(data, "c.jsonl")
    assert chat.torn_line == MESSAGES[2][:30]
    assert len(chat.messages) == 2
    assert write_chat_jsonl(chat) == "\n".join([HEADER_118, *MESSAGES[:2]]).encode("utf-8")


def test_torn_middle_line_is_an_error() -> None:
    data = "\n".join([HEADER_118, MESSAGES[0][:30], MESSAGES[1]]).encode("utf-8")
    with pytest.raises(FormatError, match="第 2 行") as info:
        read_chat_jsonl(data, "坏.jsonl")
    assert info.value.path == "坏.jsonl"


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"", "空"),
        (b"\n\n", "空"),
        (b'{"hello": 1}\n{"world": 2}', "不是 SillyTavern 聊天记录"),
        (b"not json\n{}", "第 1 行"),
        (b'{"chat_metadata":{}}\n{"mes":5,"is_user":true}', "mes 不是文本"),
        ('{"mes": "乱码"}'.encode("gb18030"), "UTF-8"),
    ],
)
def test_bad_chats(data: bytes, needle: str) -> None:
    with pytest.raises(FormatError) as info:
        read_chat_jsonl(data, "坏.jsonl")
    assert needle in info.value.message


def test_headerless_file_is_kept_headerless() -> None:
    data = "\n".join(MESSAGES).encode("utf-8")
    chat = read_chat_jsonl(data, "group.jsonl")
    assert chat.header is None and len(chat.messages) == 3
    assert write_chat_jsonl(chat) == data


@pytest.mark.parametrize("name", ["oracle-01-minimal/chat_after.jsonl", "oracle-14-chat.jsonl"])
def test_oracle_chats_round_trip(name: str) -> None:
    data = (DATA / name).read_bytes()
    chat = read_chat_jsonl(data, name)
    assert chat.style == "1.12" and chat.messages
    assert write_chat_jsonl(chat) == data


def test_new_chat_and_messages() -> None:
    chat = TavernChat.new(style="1.18", chat_metadata={"变量": {}})
    chat.messages.append(
        TavernMessage.new(
            "青梧",
            "客官请坐。",
            is_user=False,
            send_date="2026-05-03T12:00:00.000Z",
            swipes=["甲", "客官请坐。"],
        )
    )
    chat.messages.append(TavernMessage.new("小明", "好。", is_user=True, send_date="2026-05-03T12:00:01.000Z"))
    data = write_chat_jsonl(chat)
    assert data.startswith(b'{"chat_metadata":{"\xe5')  # UTF-8, no \u escapes
    assert not data.endswith(b"\n")
    again = read_chat_jsonl(data, "c.jsonl")
    assert again.style == "1.18" and again.messages[0].swipe_id == 1 and again.messages[1].is_user
    old = TavernChat.new(style="1.12", user_name="小明", character_name="青梧", create_date="2026-11-29@22h38m27s")
    assert list(old.header or {}) == ["user_name", "character_name", "create_date", "chat_metadata"]
    assert old.style == "1.12"


def test_date_formats() -> None:
    evening = datetime(2026, 11, 29, 22, 38, 27, 123456)
    assert format_send_date(evening, "1.12") == "November 29, 2026 10:38pm"
    assert format_send_date(datetime(2026, 1, 2, 0, 5), "1.12") == "January 2, 2026 12:05am"
    assert format_send_date(datetime(2026, 1, 2, 12, 0), "1.12") == "January 2, 2026 12:00pm"
    beijing = timezone(timedelta(hours=8))
    assert format_send_date(evening.replace(tzinfo=beijing), "1.18") == "2026-11-29T14:38:27.123Z"
    assert format_send_date(evening.replace(tzinfo=UTC)) == "2026-11-29T22:38:27.123Z"
    assert format_create_date(datetime(2026, 3, 4, 5, 6, 7)) == "2026-03-04@05h06m07s"


def test_send_dates_of_every_sillytavern_shape_are_read() -> None:
    beijing = timezone(timedelta(hours=8))
    # 1.12 writes the writer's local time with no zone: it stays naive (the reader's local time).
    assert parse_send_date("November 29, 2026 10:38pm") == datetime(2026, 11, 29, 22, 38)
    assert parse_send_date("January 2, 2026 12:05am") == datetime(2026, 1, 2, 0, 5)
    assert parse_send_date("Dec 1, 2026 9:07 PM") == datetime(2026, 12, 1, 21, 7)
    # 1.18: ISO 8601 (with a zone, or without one: local).
    assert parse_send_date("2026-11-29T14:38:27.123Z") == datetime(2026, 11, 29, 14, 38, 27, 123000, UTC)
    assert parse_send_date("2026-11-29T22:38:27+08:00") == datetime(2026, 11, 29, 22, 38, 27, tzinfo=beijing)
    assert parse_send_date("2026-11-29T22:38:27") == datetime(2026, 11, 29, 22, 38, 27)
    # TavernAI's epoch milliseconds, as a number or as digits.
    epoch = int(datetime(2026, 12, 1, 22, 17, tzinfo=UTC).timestamp() * 1000)
    assert parse_send_date(epoch) == datetime(2026, 12, 1, 22, 17, tzinfo=UTC)
    assert parse_send_date(str(epoch)) == datetime(2026, 12, 1, 22, 17, tzinfo=UTC)
    # The "humanized" stamps, which SillyTavern reads as UTC.
    assert parse_send_date("2024-7-12@01h31m37s") == datetime(2024, 7, 12, 1, 31, 37, tzinfo=UTC)
    assert parse_send_date("2024-07-12@01h31m37s123ms") == datetime(2024, 7, 12, 1, 31, 37, 123000, UTC)
    assert parse_send_date("2024-6-5 @14h 56m 50s 682ms") == datetime(2024, 6, 5, 14, 56, 50, 682000, UTC)
    # Nothing usable: no time rather than a wrong one.
    unreadable = ("", "x", "昨天晚上", None, True, -5, float("nan"), 10**30, "February 30, 2026 1:00pm")
    for bad in (*unreadable, "Smarch 1, 2026 1:00pm"):
        assert parse_send_date(bad) is None, bad


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
    | st.sampled_from(["\ud800", "梨\udfff园", "\x00\x1f\x7f\u2028", "😀", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(300), deadline=None)
@given(rows=st.lists(st.dictionaries(st.text(max_size=4), _JSON_VALUES, max_size=4), max_size=6), end=st.booleans())
def test_a_chat_is_written_as_each_line_written_alone(rows: list[dict[str, Any]], end: bool) -> None:
    """The whole file in one go (one encoder, one surrogate escape) is the lines written one by one."""
    one_by_one = "\n".join(dumps_compact(row) for row in rows)
    expected = (one_by_one + "\n" if end else one_by_one).encode("utf-8")
    chat = TavernChat(rows[0] if rows else None, [TavernMessage(row) for row in rows[1:]], None, end)
    assert write_chat_jsonl(chat) == expected
