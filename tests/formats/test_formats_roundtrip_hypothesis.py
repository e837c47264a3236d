"""Property tests: round-trips keep everything, and no input makes a reader fail with anything
other than a readable FormatError."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from kit.examples import examples
from kit.formats import text_chunk, tiny_png
from peargarden.errors import FormatError
from peargarden.formats import (
    TavernChat,
    TavernMessage,
    card_from_object,
    card_to_charx,
    card_to_object,
    card_to_png,
    character_book_from_lorebook,
    detect_kind,
    lorebook_from_character_book,
    new_entry,
    new_lorebook,
    read_card,
    read_chat_jsonl,
    read_lorebook,
    read_preset,
    write_chat_jsonl,
)

# Chinese-heavy text, with emoji, quotes, newlines and the odd control character.
text = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),
        st.sampled_from(list("abc XYZ 0123，。！？「」\"'\\\n\t{}<>😀\u2028\x00\x7f")),
    ),
    max_size=40,
)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), text)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def v2_cards(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {
        key: draw(text)
        for key in (
            "name",
            "description",
            "personality",
            "scenario",
            "first_mes",
            "mes_example",
            "creator_notes",
            "system_prompt",
            "post_history_instructions",
            "creator",
            "character_version",
        )
    }
    data["alternate_greetings"] = draw(st.lists(text, max_size=3))
    data["tags"] = draw(st.lists(text, max_size=3))
    data["extensions"] = draw(st.dictionaries(text, json_value, max_size=4))
    data.update(draw(st.dictionaries(st.text(alphabet="xyz未知", min_size=1, max_size=4), json_value, max_size=2)))
    obj: dict[str, Any] = {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
    if draw(st.booleans()):
        obj = {"name": data["name"], "description": "旧的顶层", "chat": draw(text), **obj, "create_date": "x"}
    return obj


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(v2_cards())
def test_card_v2_to_v3_to_png_to_v3_is_equal(obj: dict[str, Any]) -> None:
    v3 = card_to_object(card_from_object(obj, "v2.json"), "v3")
    card = card_from_object(v3, "v3.json")
    png = card_to_png(card, tiny_png())
    again = read_card(png, "v3.png")
    assert card_to_object(again, "v3") == v3
    # and the V2 chunk still carries the same data for V2-only readers
    v2_again = card_from_object(card_to_object(again, "v2"), "v2.json")
    assert v2_again.data == again.data
    # CHARX too
    assert read_card(card_to_charx(card), "c.charx").data == again.data


entry_fields = st.fixed_dictionaries(
    {
        "key": st.lists(text, max_size=3),
        "keysecondary": st.lists(text, max_size=2),
        "comment": text,
        "content": text,
        "constant": st.booleans(),
        "selective": st.booleans(),
        "selectiveLogic": st.integers(0, 3),
        "order": st.integers(-1000, 1000),
        "position": st.integers(0, 7),
        "disable": st.booleans(),
        "depth": st.integers(0, 1000),
        "role": st.integers(0, 2),
        "probability": st.integers(0, 100),
        "useProbability": st.booleans(),
        "group": text,
        "groupOverride": st.booleans(),
        "groupWeight": st.integers(1, 1000),
        "scanDepth": st.one_of(st.none(), st.integers(0, 100)),
        "caseSensitive": st.one_of(st.none(), st.booleans()),
        "matchWholeWords": st.one_of(st.none(), st.booleans()),
        "useGroupScoring": st.one_of(st.none(), st.booleans()),
        "excludeRecursion": st.booleans(),
        "preventRecursion": st.booleans(),
        "delayUntilRecursion": st.one_of(st.booleans(), st.integers(0, 5)),
        "sticky": st.one_of(st.none(), st.integers(0, 10)),
        "cooldown": st.one_of(st.none(), st.integers(0, 10)),
        "delay": st.one_of(st.none(), st.integers(0, 10)),
        "automationId": text,
        "vectorized": st.booleans(),
    }
)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(entry_fields, max_size=5))
def test_lorebook_standalone_embedded_standalone_keeps_mapped_fields(fields: list[dict[str, Any]]) -> None:
    book = new_lorebook([new_entry(uid, **f) for uid, f in enumerate(fields)])
    back = lorebook_from_character_book(character_book_from_lorebook(book, "书"), editor_resave=False)
    assert sorted(back["entries"]) == sorted(book["entries"])
    for uid, entry in book["entries"].items():
        for field, value in entry.items():
            if field != "addMemo":
                assert back["entries"][uid][field] == value, field


message = st.builds(
    lambda name, mes, is_user, swipes, extra: TavernMessage.new(
        name, mes, is_user=is_user, send_date="2026-05-03T12:00:00.000Z", extra=extra, swipes=swipes
    ),
    text,
    text,
    st.booleans(),
    st.lists(text, max_size=3),
    st.dictionaries(text, json_value, max_size=3),
)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(message, max_size=6), st.sampled_from(["1.12", "1.18"]), json_value)
def test_chat_write_read_write_is_stable(messages: list[TavernMessage], style: Any, meta: Any) -> None:
    chat = TavernChat.new(style=style, user_name="我", character_name="青梧", create_date="2026-11-29@22h38m27s")
    chat.chat_metadata["extra"] = meta
    chat.messages = messages
    data = write_chat_jsonl(chat)
    again = read_chat_jsonl(data, "c.jsonl")
    assert again.header == chat.header and again.messages == chat.messages and again.torn_line is None
    assert write_chat_jsonl(again) == data
    assert again.style == style
    assert detect_kind(data, "c.jsonl") == "chat_jsonl"


_READERS = (detect_kind, read_card, read_lorebook, read_preset, read_chat_jsonl)


def _only_format_errors(data: bytes) -> None:
    for reader in _READERS:
        try:
            reader(data, "随机.bin")
        except FormatError as exc:
            assert "\n" not in str(exc) and exc.path == "随机.bin"


@settings(max_examples=examples(150), deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_only_raise_format_errors(data: bytes) -> None:
    _only_format_errors(data)


_VALID_PNG = tiny_png(text_chunk("chara", b"eyJzcGVjIjoiY2hhcmFfY2FyZF92MiIsImRhdGEiOnsibmFtZSI6IuWTgSJ9fQ=="))
_VALID_JSON = json.dumps({"spec": "chara_card_v2", "data": {"name": "青梧", "character_book": {"entries": []}}})


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, len(_VALID_PNG) - 1), st.integers(0, 255), st.integers(0, len(_VALID_PNG)))
def test_damaged_png_only_raises_format_errors(index: int, byte: int, cut: int) -> None:
    damaged = bytearray(_VALID_PNG)
    damaged[index] = byte
    _only_format_errors(bytes(damaged[:cut]) if cut > 8 else bytes(damaged))


@settings(max_examples=examples(100), deadline=None)
@given(json_value)
def test_any_json_only_raises_format_errors(value: Any) -> None:
    _only_format_errors(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    wrapped = copy.deepcopy(json.loads(_VALID_JSON))
    wrapped["data"]["character_book"] = value
    wrapped["data"]["extensions"] = value
    _only_format_errors(json.dumps(wrapped, ensure_ascii=False).encode("utf-8"))


@settings(max_examples=examples(100), deadline=None)
@given(st.dictionaries(st.sampled_from(["entries", "name", "extensions", "originalData"]), json_value))
def test_book_conversions_accept_any_shape(book: dict[str, Any]) -> None:
    for entries in (book.get("entries"), [book], [{"keys": book, "extensions": book, "id": book}]):
        shaped = {**book, "entries": entries}
        standalone = lorebook_from_character_book(shaped)
        assert isinstance(standalone["entries"], dict)
        assert isinstance(character_book_from_lorebook(shaped)["entries"], list)
        assert isinstance(character_book_from_lorebook(standalone)["entries"], list)


# A name with a NUL inside is cut there by zipfile, so both members may get the same name: a
# hostile archive's shape too, and zipfile warns when it writes one.
@pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")
@settings(max_examples=examples(60), deadline=None)
@given(st.text(min_size=1, max_size=8), st.sampled_from(["card.json", "assets/x.bin"]))
def test_odd_member_names_never_break_the_one_line_message(name: str, target: str) -> None:
    import io
    import zipfile

    # Python's zipfile cuts a member name at its first NUL, so such names cannot be written at all.
    assume(not name.startswith("\x00"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("card.json" if target != "card.json" else name, b"{}")
        archive.writestr(name + "\n/../x", b"x")
    try:
        read_card(buffer.getvalue(), "odd.charx")
    except FormatError as exc:
        assert "\n" not in str(exc)
