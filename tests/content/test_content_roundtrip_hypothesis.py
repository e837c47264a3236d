"""Property: any text — lone surrogates, CRLF, emoji, CJK — survives card PNG/JSON/CHARX, chat JSONL,
and the card project's slot files, exactly.

A lone surrogate here is what ``JSON.parse`` of SillyTavern's ``\\udXXX`` escapes gives.  A high
surrogate directly followed by a low one is not lone (JavaScript reads the two as one emoji, and so
does ``json.loads``), so such neighbours are not generated.
"""

from __future__ import annotations

import itertools
import json

from content_corpus import card_png, js_json, jsonl, v2_card
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kit.examples import examples
from peargarden.formats import card_to_charx, card_to_json, card_to_png, read_card, read_chat_jsonl, write_chat_jsonl
from peargarden.modes.work.project import same_text, slot_bytes, slot_text, with_line_endings

PIECES = st.sampled_from(
    [
        *("\r\n", "\n", "\r", "\ud83d", "\ude00", "\udbff", "\udc00", "\u2028"),
        *("😀", "👩‍👧", "梨", "「", "a", " ", "\t", "\\", '"'),
    ]
)
CHARS = st.characters(blacklist_categories=("Cs",))


def _not_a_pair(text: str) -> bool:
    return not any(0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF for a, b in itertools.pairwise(text))


TEXTS = st.lists(st.one_of(PIECES, CHARS), max_size=40).map("".join).filter(_not_a_pair)


def _card(description: str, greeting: str, lore: str) -> dict[str, object]:
    book = {"name": "书", "entries": [{"id": 0, "keys": ["钥"], "content": lore, "comment": greeting,
                                      "enabled": True, "insertion_order": 100, "extensions": {}}]}  # fmt: skip
    return v2_card("卡", description=description, first_mes=greeting, character_book=book)


@settings(max_examples=examples(60), deadline=None)
@given(TEXTS, TEXTS, TEXTS)
def test_card_text_survives_every_container(description: str, greeting: str, lore: str) -> None:
    source = _card(description, greeting, lore)
    for data in (js_json(source, indent=4), card_png(source)):
        card = read_card(data, "卡")
        assert card.data["description"] == description and card.data["first_mes"] == greeting
        for written in (card_to_json(card, "v2"), card_to_json(card, "v3"), card_to_png(card, card_png(source)),
                        card_to_charx(card)):  # fmt: skip
            if written[:1] == b"{":
                written.decode("utf-8")  # a JSON card is valid UTF-8
            again = read_card(written, "卡").data
            assert again["description"] == description and again["first_mes"] == greeting
            assert again["character_book"]["entries"][0]["content"] == lore


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=4))
def test_chat_jsonl_keeps_its_bytes(messages: list[str]) -> None:
    head = {"user_name": "旅人", "character_name": "卡", "create_date": "2026-12-1@00h00m00s", "chat_metadata": {}}
    lines: list[dict[str, object]] = [head]
    lines += [{"name": "卡", "is_user": False, "mes": m, "swipes": [m, m + "😀"], "swipe_id": 0} for m in messages]
    data = jsonl(lines)
    chat = read_chat_jsonl(data, "x.jsonl")
    assert [m.mes for m in chat.messages] == messages
    assert write_chat_jsonl(chat) == data  # what JSON.stringify wrote, byte for byte
    assert [json.loads(line) for line in write_chat_jsonl(chat).decode("utf-8").split("\n")] == lines


@settings(max_examples=examples(100), deadline=None)
@given(TEXTS, TEXTS)
@example("\r\r\n", "")  # one CRLF → LF pass leaves "\r\n": still the same text
def test_slot_files_keep_text_and_line_endings(original: str, edit: str) -> None:
    assert slot_text(slot_bytes(original)) == original
    assert same_text(original.replace("\r\n", "\n"), original)
    applied = with_line_endings(edit, original)
    if "\r\n" in original and "\r" not in edit:
        assert applied == edit.replace("\n", "\r\n")
    else:
        assert applied == edit

