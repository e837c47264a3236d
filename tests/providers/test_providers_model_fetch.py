"""Joining a model out of pinned chunk wheels: every check refuses bad bytes with one line, and
nothing is left behind (and nothing loaded) when a check fails."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import msgspec
import pytest

from kit.gguf_files import qwen_like
from peargarden.providers.gguf import BadGguf, read_gguf
from peargarden.providers.model_catalog import CatalogModel, Chunk
from peargarden.providers.model_fetch import ModelCheckFailed, assemble, installed_path, requirements_text


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wheel(folder: Path, project: str, member: str, data: bytes) -> Chunk:
    name = f"{project.replace('-', '_')}-0.9.0-py3-none-any.whl"
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        # What the real chunk wheels carry besides the chunk: code we must never run.
        archive.writestr(f"{project.replace('-', '_')}/__init__.py", "raise SystemExit('imported!')\n")
        archive.writestr(member, data)
    return Chunk(project, "0.9.0", name, _sha(path.read_bytes()), member, len(data))


def _split_model(folder: Path, gguf: bytes, parts: int = 3) -> CatalogModel:
    step = -(-len(gguf) // parts)
    chunks = tuple(
        _wheel(folder, f"fake-part{n}", f"fake_part{n}/data/part{n:02d}.bin", gguf[(n - 1) * step : n * step])
        for n in range(1, parts + 1)
    )
    return CatalogModel(
        key="tiny",
        display="Tiny",
        file_name="tiny-测试.gguf",
        size=len(gguf),
        sha256=_sha(gguf),
        architecture="qwen2",
        gguf_name="Tiny Test Qwen",
        upstream="test",
        license="none",
        note="",
        chunks=chunks,
    )


def _left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_joins_the_chunks_into_the_pinned_gguf(tmp_path: Path) -> None:
    gguf = qwen_like()
    model = _split_model(tmp_path, gguf)
    messages: list[str] = []
    path = assemble(model, tmp_path, tmp_path / "models", messages.append)
    assert path.read_bytes() == gguf
    assert read_gguf(path).name == "Tiny Test Qwen"
    assert installed_path(model, tmp_path / "models") == path
    assert len(messages) == 3 and "3" in messages[-1]
    # Touching the file afterwards makes the verification note stale.
    path.write_bytes(gguf)
    assert installed_path(model, tmp_path / "models") is None


def test_a_wheel_with_the_wrong_hash_is_refused_before_reading(tmp_path: Path) -> None:
    model = _split_model(tmp_path, qwen_like())
    second = model.chunks[1]
    bad = msgspec.structs.replace(second, wheel_sha256="0" * 64)
    model = msgspec.structs.replace(model, chunks=(model.chunks[0], bad, model.chunks[2]))
    with pytest.raises(ModelCheckFailed) as caught:
        assemble(model, tmp_path, tmp_path / "models")
    message = str(caught.value)
    assert "\n" not in message and second.wheel in message and "sha256" in message
    assert _left_in(tmp_path / "models") == []


def test_a_truncated_chunk_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    gguf = qwen_like()
    model = _split_model(tmp_path, gguf)
    last = model.chunks[-1]
    # A wheel that matches its (re-pinned) hash but whose chunk lost its tail.
    short = _wheel(tmp_path, "fake-part3", last.member, gguf[-last.size : -1000])
    model = msgspec.structs.replace(model, chunks=(*model.chunks[:2], msgspec.structs.replace(short, size=last.size)))
    with pytest.raises(ModelCheckFailed) as caught:
        assemble(model, tmp_path, tmp_path / "models")
    assert "\n" not in str(caught.value) and last.member in str(caught.value)
    assert _left_in(tmp_path / "models") == []


def test_joined_bytes_with_the_wrong_sha256_are_refused(tmp_path: Path) -> None:
    model = msgspec.structs.replace(_split_model(tmp_path, qwen_like()), sha256="f" * 64)
    with pytest.raises(ModelCheckFailed, match="sha256") as caught:
        assemble(model, tmp_path, tmp_path / "models")
    assert "tiny-测试.gguf" in str(caught.value)
    assert _left_in(tmp_path / "models") == []


def test_a_non_gguf_is_refused_even_when_its_hash_is_pinned(tmp_path: Path) -> None:
    # Pinning the hash of a wrong file (a mistake in the catalog) still does not get it loaded.
    model = _split_model(tmp_path, b"PK\x03\x04 not a model at all " * 5000)
    with pytest.raises(ModelCheckFailed, match="GGUF") as caught:
        assemble(model, tmp_path, tmp_path / "models")
    assert "\n" not in str(caught.value)
    assert _left_in(tmp_path / "models") == []


def test_a_gguf_of_another_model_is_refused(tmp_path: Path) -> None:
    model = _split_model(tmp_path, qwen_like(name="Someone Else 7B"))
    with pytest.raises(ModelCheckFailed, match="Someone Else 7B"):
        assemble(model, tmp_path, tmp_path / "models")
    assert _left_in(tmp_path / "models") == []


def test_a_missing_chunk_member_is_refused(tmp_path: Path) -> None:
    model = _split_model(tmp_path, qwen_like())
    moved = msgspec.structs.replace(model.chunks[0], member="fake_part1/data/other.bin")
    model = msgspec.structs.replace(model, chunks=(moved, *model.chunks[1:]))
    with pytest.raises(ModelCheckFailed, match=r"other\.bin"):
        assemble(model, tmp_path, tmp_path / "models")


def test_requirements_pin_every_wheel_by_version_and_hash(tmp_path: Path) -> None:
    model = _split_model(tmp_path, qwen_like())
    lines = requirements_text(model).splitlines()
    assert lines == [f"{c.project}==0.9.0 --hash=sha256:{c.wheel_sha256}" for c in model.chunks]


def test_the_real_catalog_is_consistent() -> None:
    from peargarden.providers.model_catalog import CATALOG, DEFAULT

    assert DEFAULT.key in CATALOG
    for model in CATALOG.values():
        assert sum(c.size for c in model.chunks) == model.size
        assert len(model.sha256) == 64 and all(len(c.wheel_sha256) == 64 for c in model.chunks)
        assert model.license and model.upstream


def test_read_gguf_refuses_garbage_with_one_line(tmp_path: Path) -> None:
    text = tmp_path / "角色.json"
    text.write_text('{"name": "青梧"}', encoding="utf-8")
    with pytest.raises(BadGguf) as caught:
        read_gguf(text)
    assert "角色.json" in str(caught.value) and "\n" not in str(caught.value)
