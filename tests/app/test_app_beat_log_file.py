"""The beat log's file (app/play/beat_log.py): what is saved is read back as it was, every field of a
record and nothing else, the last ten beats kept."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from peargarden.app.play import beat_log
from peargarden.app.play.beat_log import BeatRecord


def _record(n: int) -> BeatRecord:
    rounds = [
        {
            "purpose": "beat",
            "messages": [{"slot": "history", "role": "user", "text": f"掌柜，第{n}壶茶", "tokens": None}],
        }
    ]
    return BeatRecord(f"2026-12-03T00:00:{n:02d}.000+00:00", 1.5 + n, [f"e{n}", f"回{n}"], rounds, [f"提示{n}"])


def test_saved_records_read_back_whole_and_only_the_last_ten(tmp_path: Path) -> None:
    session = tmp_path / "对话" / "session.jsonl"
    session.parent.mkdir()
    records = [_record(n) for n in range(12)]
    beat_log.save(session, records)
    written = json.loads(beat_log.log_path(session).read_text(encoding="utf-8"))
    names = [field.name for field in msgspec.structs.fields(BeatRecord)]
    assert [list(beat) for beat in written["beats"]] == [names] * beat_log.KEEP
    assert beat_log.load(session, counted=False) == records[-beat_log.KEEP :]


def test_a_lone_surrogate_in_a_request_is_written_and_read_back(tmp_path: Path) -> None:
    # A card's text can hold a lone surrogate (an import of a broken JSON escape); the log keeps it.
    session = tmp_path / "对话" / "session.jsonl"
    session.parent.mkdir()
    record = _record(1)
    record.rounds[0]["messages"][0]["text"] = "残字\ud800"
    beat_log.save(session, [_record(0), record])
    assert beat_log.log_path(session).read_bytes().decode("utf-8").count("\\ud800") == 1
    assert beat_log.load(session, counted=False) == [_record(0), record]


def test_a_torn_log_reads_as_empty_and_the_next_beat_starts_it_again(tmp_path: Path) -> None:
    session = tmp_path / "对话" / "session.jsonl"
    session.parent.mkdir()
    beat_log.save(session, [_record(0), _record(1)])
    whole = beat_log.log_path(session).read_bytes()
    beat_log.log_path(session).write_bytes(whole[: len(whole) // 2])
    assert beat_log.load(session) == []
    beat_log.save(session, [*beat_log.load(session, counted=False), _record(2)])
    assert beat_log.load(session, counted=False) == [_record(2)]
