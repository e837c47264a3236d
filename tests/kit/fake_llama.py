"""The fake llama.cpp runtime (``kit/fake_runtime/llama_cpp``) for the worker's fault tests.

The provider runs the model in a worker process; these helpers make that worker import the fake
instead of llama-cpp-python (``PYTHONPATH``), tell it how to misbehave (``PEAR_FAKE_LLAMA``, see the
fake's docstring), and keep its traces and the self-test's ``runtime.json`` in a test folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kit.gguf_files import qwen_like
from peargarden.providers.model_catalog import CatalogModel

FAKE_RUNTIME = Path(__file__).resolve().parent / "fake_runtime"
# The fake's chat reply (its REPLY: the fake cannot be imported here, its name is llama_cpp's).
FAKE_REPLY = "有的，楼上还空着一间临河的房。"


def fake_model(folder: Path, name: str = "青梧小模型.gguf") -> Path:
    """A header-only GGUF of a 0.5B-shaped qwen2 model (the provider reads only its header)."""
    path = folder / name
    path.write_bytes(qwen_like("青梧测试模型", payload_size=4096))
    return path


def fake_runtime_env(state: Path, directives: str = "", base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment whose Python processes import the fake runtime, misbehaving as *directives* say."""
    env = dict(os.environ if base is None else base)
    state.mkdir(parents=True, exist_ok=True)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(FAKE_RUNTIME), env.get("PYTHONPATH", "")) if p)
    env["PEAR_FAKE_LLAMA"] = directives
    env["PEAR_FAKE_LLAMA_STATE"] = str(state)
    env["PEARGARDEN_MODELS"] = str(state / "models")
    return env


def use_fake_runtime(monkeypatch: pytest.MonkeyPatch, state: Path, directives: str = "") -> None:
    """This test's workers (started from this process) run the fake runtime."""
    for key, value in fake_runtime_env(state, directives, {}).items():
        if key == "PYTHONPATH":
            value = os.pathsep.join(p for p in (value, os.environ.get("PYTHONPATH", "")) if p)
        monkeypatch.setenv(key, value)


def misbehave(monkeypatch: pytest.MonkeyPatch, directives: str) -> None:
    """Change what the next workers do (a running worker keeps what it read at start)."""
    monkeypatch.setenv("PEAR_FAKE_LLAMA", directives)


def loads(state: Path) -> list[tuple[int, bool]]:
    """(pid, with extra buffer types) of every process that loaded a model, in order."""
    try:
        lines = (state / "loads").read_text(encoding="utf-8").split()
    except FileNotFoundError:
        return []
    return [(int(pid), flag == "1") for pid, flag in zip(lines[::2], lines[1::2], strict=True)]


def fake_fetched(folder: Path, model: CatalogModel) -> Path:
    """*model* as `pear models --fetch` leaves it in *folder*: a file of its size (a qwen2 header, the
    rest sparse: nothing written) with the note that says it was verified.  Only the fake runtime can
    "load" it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / model.file_name
    with path.open("wb") as stream:
        stream.write(qwen_like(model.gguf_name, payload_size=4096))
        stream.truncate(model.size)
    stat = path.stat()
    note = {"sha256": model.sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    path.with_name(path.name + ".verified").write_text(json.dumps(note), encoding="utf-8")
    return path
