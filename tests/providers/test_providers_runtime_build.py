"""The runtime's build recipe (providers/runtime_build.py) and the model download's progress and cancel
(providers/model_fetch.py), driven by stand-in commands in real child processes: nothing is built or
downloaded here."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from peargarden.providers import model_fetch, runtime_build
from peargarden.providers.model_catalog import DEFAULT

# A stand-in for pip's verbose build: ninja's "[n/total]" lines, one every STEP seconds.
FAKE_BUILD = """
import sys, time
total = int(sys.argv[1]); pause = float(sys.argv[2])
print("Building wheel for llama-cpp-python (pyproject.toml): started", flush=True)
for n in range(1, total + 1):
    print(f"  [{n}/{total}] Building CXX object vendor/llama.cpp/src/llama-{n}.cpp.o", flush=True)
    time.sleep(pause)
sys.exit(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
"""
# A stand-in for pip download: writes a file into $TMPDIR a block at a time (as pip does), then moves it.
FAKE_DOWNLOAD = """
import os, sys, time, pathlib
dest = pathlib.Path(sys.argv[1]); blocks = int(sys.argv[2]); pause = float(sys.argv[3])
part = pathlib.Path(os.environ["TMPDIR"]) / "pip-unpack-1" / "chunk.whl"
part.parent.mkdir(parents=True)
with part.open("wb") as out:
    for _ in range(blocks):
        out.write(b"\\0" * 100_000); out.flush(); time.sleep(pause)
part.rename(dest / "chunk.whl")
"""


def test_the_build_recipe_is_setup_shs() -> None:
    native = runtime_build.cmake_args("native", "x86_64", "", Path("/repo/scripts/llama_trim.cmake"))
    assert native == "-DLLAVA_BUILD=OFF -DGGML_NATIVE=ON -DCMAKE_PROJECT_INCLUDE=/repo/scripts/llama_trim.cmake"
    portable = runtime_build.cmake_args("portable", "x86_64", "-DGGML_BLAS=ON")
    assert "-DGGML_NATIVE=OFF" in portable and "-DGGML_AVX2=ON" in portable and portable.endswith("-DGGML_BLAS=ON")
    assert "-DGGML_AVX2=ON" not in runtime_build.cmake_args("portable", "aarch64")
    command = runtime_build.build_command("native", "py", Path("r.lock"))
    assert command[-3:] == ["-c", "r.lock", "llama-cpp-python==0.3.36"]
    assert "--force-reinstall" in runtime_build.build_command("portable", "py")
    env = runtime_build.build_environment("native", {"CMAKE_ARGS": "-DMINE=1", "PATH": "/bin"})
    assert env["CMAKE_ARGS"].startswith("-DLLAVA_BUILD=OFF -DGGML_NATIVE=ON") and env["CMAKE_ARGS"].endswith("-DMINE=1")
    assert runtime_build.last_step(b"x\n  [3/9] a\n[4/9] b\nlinking") == (4, 9)
    assert runtime_build.time_left(4, 9, 20.0) == 25.0 and runtime_build.time_left(0, 9, 1.0) is None


def test_a_build_reports_its_files_and_time_left(tmp_path: Path) -> None:
    seen: list[tuple[int, int, float]] = []
    said: list[str] = []
    runtime_build.build_runtime("native", say=said.append, step=lambda *a: seen.append(a), log=tmp_path / "b.log",
                                command=[sys.executable, "-c", FAKE_BUILD, "6", "0.1"], environ=dict(os.environ),
                                every=0.05, needs=())  # fmt: skip
    assert seen and seen[-1][:2] == (6, 6) and [s[0] for s in seen] == sorted(s[0] for s in seen)
    assert all(total == 6 for _, total, _ in seen) and said and "编译" in said[0]
    assert "[6/6]" in (tmp_path / "b.log").read_text(encoding="utf-8")


def test_a_failed_build_is_one_line_naming_its_log(tmp_path: Path) -> None:
    with pytest.raises(runtime_build.BuildFailed) as failed:
        runtime_build.build_runtime("native", log=tmp_path / "b.log", every=0.05, needs=(),
                                    command=[sys.executable, "-c", FAKE_BUILD, "2", "0", "3"])  # fmt: skip
    assert "pip exited 3" in str(failed.value) and str(tmp_path / "b.log") in str(failed.value)
    assert "\n" not in str(failed.value)


def test_a_cancelled_build_stops_every_process_it_started(tmp_path: Path) -> None:
    cancel = threading.Event()
    pid_file = tmp_path / "child.pid"
    # pip starts cmake and ninja: here a child that starts a grandchild, which must stop too.
    script = (f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; "
              f"time.sleep(60)']); open({str(pid_file)!r}, 'w').write(str(p.pid)); print('[1/50]', flush=True); "
              "time.sleep(60)")  # fmt: skip
    threading.Timer(0.5, cancel.set).start()
    began = time.monotonic()
    with pytest.raises(runtime_build.BuildCancelled):
        runtime_build.build_runtime("native", cancel=cancel, log=tmp_path / "b.log", every=0.05, needs=(),
                                    command=[sys.executable, "-c", script])  # fmt: skip
    assert time.monotonic() - began < 15
    grandchild = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the build's child process was left running")


def test_missing_build_tools_are_one_line_saying_what_to_do() -> None:
    assert runtime_build.missing_tools(lambda tool: None if tool == "cmake" else "/usr/bin/" + tool) == ["cmake"]
    error = runtime_build.tools_error(["cmake", "g++"])
    assert "cmake、g++" in error.without_hint() and "连接一个模型" in error.without_hint()
    assert "apt-get" not in error.without_hint() and "apt-get" in str(error)  # the command: the terminal's


def test_the_download_reports_bytes_as_they_land_and_a_cancel_leaves_no_half_file(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    seen: list[tuple[int, int]] = []
    model_fetch.download(DEFAULT, wheels, meter=lambda done, total: seen.append((done, total)), every=0.05,
                         command=[sys.executable, "-c", FAKE_DOWNLOAD, str(wheels), "8", "0.05"])  # fmt: skip
    grown = [done for done, _ in seen]
    assert grown[-1] == 800_000 and any(0 < done < 800_000 for done in grown) and grown == sorted(grown)
    assert all(total == sum(c.size for c in DEFAULT.chunks) for _, total in seen)
    assert not (wheels / ".tmp").exists() and (wheels / "chunk.whl").is_file()

    cancel = threading.Event()
    again = tmp_path / "again"
    threading.Timer(0.4, cancel.set).start()
    with pytest.raises(model_fetch.ProviderError, match="已取消"):
        model_fetch.download(DEFAULT, again, cancel=cancel, every=0.05,
                             command=[sys.executable, "-c", FAKE_DOWNLOAD, str(again), "200", "0.05"])  # fmt: skip
    assert not (again / ".tmp").exists() and not (again / "chunk.whl").exists()
