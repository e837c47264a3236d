"""The checkpoint of a streaming reply is bounded: at most once a second or every 500 characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from peargarden.app.play.checkpoints import StreamCheckpoint
from peargarden.workspace import atomic


def test_checkpoint_writes_are_bounded_and_dropped_once_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [100.0]
    writes: list[str] = []
    real = atomic.write_json

    def counting(path: Path, value: object, **kwargs: object) -> None:
        writes.append(json.dumps(value, ensure_ascii=False))
        real(path, value, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic, "write_json", counting)
    checkpoint = StreamCheckpoint(tmp_path / "s.json", lambda: "abcd1234", clock=lambda: now[0])
    for _ in range(200):  # the first delta is written, then nothing until 500 more characters
        checkpoint.add(text="雨")
    assert len(writes) == 1
    checkpoint.add(text="声" * 499)
    assert len(writes) == 2
    checkpoint.add(text="")
    assert len(writes) == 2
    now[0] += 1.5
    checkpoint.add(reasoning="想")  # a second later, one more character is enough
    assert len(writes) == 3
    saved = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert saved["parentId"] == "abcd1234" and saved["text"] == "雨" * 200 + "声" * 499 and saved["reasoning"] == "想"
    checkpoint.recorded()
    assert not (tmp_path / "s.json").exists() and checkpoint.text == ""
