"""A verified catalog model's header comes from the catalog's pins, not from reading the file again
(~70 ms of CPU in every ``pear`` process that resolves the embedded model); anything that is not the
verified file is read and checked as before."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from peargarden.errors import PearError
from peargarden.providers.embedded import model_traits
from peargarden.providers.gguf import read_gguf
from peargarden.providers.model_catalog import CATALOG, QWEN_05B
from peargarden.providers.model_fetch import models_dir


def verified_copy(folder: Path) -> Path:
    """A file of the pinned model's size (sparse, not a GGUF) with the note a fetch leaves beside it."""
    path = folder / QWEN_05B.file_name
    with path.open("wb") as handle:
        handle.truncate(QWEN_05B.size)
    stat = path.stat()
    note = {"sha256": QWEN_05B.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "model": QWEN_05B.key}
    (folder / f"{QWEN_05B.file_name}.verified").write_text(json.dumps(note), encoding="utf-8")
    return path


def test_a_verified_model_is_not_read_again(tmp_path: Path) -> None:
    path = verified_copy(tmp_path)
    traits = model_traits(path)  # the bytes are zeros: a read would refuse them
    assert QWEN_05B.header is not None
    assert (traits.catalog_key, traits.context_length, traits.parameters) == (
        "qwen-0.5b",
        QWEN_05B.header.context_length,
        QWEN_05B.header.parameters,
    )
    assert traits.small and traits.has_chat_template


def test_a_file_changed_since_its_check_is_read_and_refused(tmp_path: Path) -> None:
    path = verified_copy(tmp_path)
    later = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))
    with pytest.raises(PearError, match=r"(?i)gguf"):
        model_traits(path)


def test_a_model_without_its_note_is_read(tmp_path: Path) -> None:
    path = verified_copy(tmp_path)
    (tmp_path / f"{QWEN_05B.file_name}.verified").unlink()
    with pytest.raises(PearError):
        model_traits(path)


@pytest.mark.parametrize("key", [key for key, model in CATALOG.items() if model.header is not None])
def test_the_pins_are_what_the_real_header_says(key: str) -> None:
    model = CATALOG[key]
    path = models_dir() / model.file_name
    if not path.is_file():
        pytest.skip(f"{model.file_name} is not fetched here (bash scripts/chat.sh fetches the default)")
    info = read_gguf(path)
    assert model.header is not None
    assert (info.approx_parameters(), info.context_length, bool(info.chat_template)) == (
        model.header.parameters,
        model.header.context_length,
        model.header.has_chat_template,
    )
