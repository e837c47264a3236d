"""What the self-test found on this machine, kept in ``runtime.json`` beside the models.

A record holds the configuration the embedded model runs with (:mod:`.runtime_check` chose it) and
what it was chosen on: the machine (its CPU's flags, hashed), the runtime (llama-cpp-python's version
and its built libraries: a rebuild is another runtime), and the model file (path, size, mtime).  Any
of those changing makes the record stale, and the next start runs the self-test again.

The file lives in the models folder (``$PEARGARDEN_MODELS``, else the user's cache: see
:mod:`.model_fetch`), which every data folder of this user shares, as it shares the models.
It is written whole (temp file, rename): a crash leaves the old one or the new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import platform
from pathlib import Path
from typing import Any

from ._json_record import write_json_record
from .llama_session import runtime_version
from .model_fetch import models_dir

RECORD_NAME = "runtime.json"
FORMAT = 1
_KEEP = 32  # records kept, the newest first (one per model, machine and runtime build)


def record_path(folder: Path | None = None) -> Path:
    return (folder or models_dir()) / RECORD_NAME


def cpu_flags(cpuinfo: str | None = None) -> tuple[str, list[str]]:
    """(CPU model name, its feature flags) from ``/proc/cpuinfo``; ("", []) where there is none."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return platform.processor(), []
    name, flags = "", list[str]()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not name:
            name = value.strip()
        elif key in ("flags", "Features") and not flags:
            flags = sorted(set(value.split()))
    return name, flags


def machine_identity(cpuinfo: str | None = None) -> dict[str, Any]:
    """The machine as the runtime's kernels see it: architecture, CPU name, a hash of its flags, and
    the flags that decide llama.cpp's CPU paths (shown to people; the hash covers all)."""
    name, flags = cpu_flags(cpuinfo)
    notable = [f for f in flags if f.startswith(("avx", "amx")) or f in ("fma", "f16c", "sse4_2", "asimd", "sve")]
    digest = hashlib.sha256(" ".join(flags).encode()).hexdigest()[:16]
    return {"arch": platform.machine(), "cpu": name, "flags_sha": digest, "notable_flags": notable}


def runtime_identity() -> dict[str, Any]:
    """llama-cpp-python's version and a hash of its built libraries (name, size, mtime), found
    without importing it; empty values when it is not installed."""
    version = runtime_version()
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        spec = None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    digest = hashlib.sha256(version.encode())
    for folder in folders:
        lib = Path(folder) / "lib"
        for path in sorted(lib.iterdir()) if lib.is_dir() else []:
            with contextlib.suppress(OSError):
                stat = path.stat()
                digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return {"version": version, "build_sha": digest.hexdigest()[:16] if folders else ""}


def model_identity(path: Path) -> dict[str, Any]:
    try:
        stat = path.stat()
    except OSError:
        return {"path": str(path), "size": -1, "mtime_ns": -1}
    return {"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _same(record: dict[str, Any], machine: dict[str, Any], runtime: dict[str, Any], model: dict[str, Any]) -> bool:
    seen_machine = record.get("machine") or {}
    return (
        seen_machine.get("flags_sha") == machine["flags_sha"]
        and seen_machine.get("arch") == machine["arch"]
        and record.get("runtime") == runtime
        and record.get("model") == model
    )


def read_records(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every record in the file; none when it is missing or unreadable (the self-test runs again)."""
    try:
        data = json.loads(record_path(folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("records"), list):
        return []
    return [r for r in data["records"] if isinstance(r, dict)]


def find_record(model: Path, folder: Path | None = None) -> dict[str, Any] | None:
    """The record for *model* on this machine and runtime, if one was made."""
    machine, runtime, identity = machine_identity(), runtime_identity(), model_identity(model)
    return next((r for r in read_records(folder) if _same(r, machine, runtime, identity)), None)


def _key(record: dict[str, Any]) -> tuple[Any, ...]:
    """What one record stands for: a model file on a machine with a runtime build (two virtual
    environments with their own builds share the models folder, and each keeps its record)."""
    machine, runtime = record.get("machine") or {}, record.get("runtime") or {}
    return ((record.get("model") or {}).get("path"), machine.get("flags_sha"), runtime.get("build_sha"))


def write_record(record: dict[str, Any], folder: Path | None = None) -> Path:
    """Store *record* (it replaces the one for the same model, machine and runtime); returns the file."""
    path = record_path(folder)
    kept = [r for r in read_records(folder) if _key(r) != _key(record)]
    data = {"format": FORMAT, "records": [record, *kept][:_KEEP]}
    return write_json_record(path, data, prefix=".runtime-")


def new_record(model: Path) -> dict[str, Any]:
    """A record's identity fields for *model* here and now (the caller adds what was chosen)."""
    return {"model": model_identity(model), "machine": machine_identity(), "runtime": runtime_identity()}
