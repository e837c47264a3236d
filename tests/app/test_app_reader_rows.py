"""What the chat page shows of a finished stage beat: the prose on the row that ended the draft,
the fork on the row that asked, the beat's other rounds as folded steps (app/play/reader_rows.py)."""

from __future__ import annotations

import json
from typing import Any

from peargarden.app.play.reader_rows import RowReading, row_readings
from peargarden.sessions import message_entry
from peargarden.sessions.entries import Entry
from peargarden.stage.history import beat_reading

STAMP = "2026-12-07T08:00:00"


def said(role: str, text: str = "", **more: Any) -> dict[str, Any]:
    return {"role": role, "content": text, **more}


def call(cid: str, name: str, args: dict[str, Any], *, by: str | None = None) -> dict[str, Any]:
    message = said(
        "assistant", tool_calls=[{"id": cid, "name": name, "arguments": json.dumps(args, ensure_ascii=False)}]
    )
    if by:
        message["name"] = by
    return message


def done(cid: str, error: bool = False) -> dict[str, Any]:
    return said("tool", "好" if not error else "找不到", tool_call_id=cid, is_error=error)


def branch(*messages: dict[str, Any]) -> list[Entry]:
    entries, parent = [], None
    for number, message in enumerate(messages):
        entry = message_entry(f"e{number:04d}", parent, STAMP, message)
        entries.append(entry)
        parent = entry.id
    return entries


SEALED = (
    said("user", "雨下得好大。"),
    call("a", "draft_write", {"content": "雨点打在油纸伞上。"}),
    done("a"),
    call("b", "draft_append", {"content": "青梧收了伞。"}),
    done("b"),
    call("c", "draft_seal", {}),
    done("c"),
    said("user", "我进去了。"),
    call("d", "ask", {"question": "坐哪儿？", "options": ["靠窗", "靠炉子"]}),
    done("d"),
)


def test_the_sealing_row_carries_the_prose_and_the_asking_row_the_fork() -> None:
    entries = branch(*SEALED)
    found = row_readings(entries, 0, len(entries))
    assert found[5] == RowReading(prose="雨点打在油纸伞上。\n\n青梧收了伞。")
    assert found[1] == found[3] == RowReading(step=True)
    assert found[8] == RowReading(choice={"question": "坐哪儿？", "options": ["靠窗", "靠炉子"], "free_text": True})
    assert set(found) == {1, 3, 5, 8}  # user and tool rows show nothing of their own


def test_a_window_that_starts_inside_a_beat_reads_the_whole_beat() -> None:
    entries = branch(*SEALED)
    found = row_readings(entries, 4, len(entries))  # from draft_append's result on
    assert found[5].prose == "雨点打在油纸伞上。\n\n青梧收了伞。"


def test_a_failed_seal_leaves_the_draft_as_prose_and_a_bad_ask_no_fork() -> None:
    entries = branch(
        said("user", "走吧。"),
        call("a", "draft_write", {"content": "她提起灯笼。"}),
        done("a"),
        call("b", "ask", {"question": "去哪？", "options": ["渡口"]}),  # one option: refused by the tool
        done("b", error=True),
    )
    found = row_readings(entries, 0, len(entries))
    assert found[1].prose == "她提起灯笼。" and found[1].choice is None
    assert found[3] == RowReading(step=True)


def test_a_beat_without_the_sheet_shows_its_own_text() -> None:
    entries = branch(
        said("user", "掌柜在吗？"),
        call("a", "lorebook_search", {"query": "听雨轩"}),
        done("a"),
        said("assistant", "青梧抬起头：“在呢。”"),
    )
    assert row_readings(entries, 0, len(entries)) == {}
    assert beat_reading([e.message for e in entries[1:]]).prose_at is None


def test_a_group_round_is_one_beat_per_speaker() -> None:
    entries = branch(
        said("user", "两位好。"),
        call("a", "draft_write", {"content": "青梧点头。"}, by="青梧"),
        done("a"),
        call("b", "draft_seal", {}, by="青梧"),
        done("b"),
        call("c", "draft_write", {"content": "周伯咳了一声。"}, by="周伯"),
        done("c"),
        call("d", "draft_seal", {}, by="周伯"),
        done("d"),
    )
    found = row_readings(entries, 0, len(entries), split_replies=True)
    assert found[3].prose == "青梧点头。" and found[7].prose == "周伯咳了一声。"
    # Read as one beat, the sealed sheet refuses the second speaker's draft: his row would show hers.
    assert row_readings(entries, 0, len(entries))[7].prose == "青梧点头。"
