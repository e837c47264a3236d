#!/usr/bin/env bash
# Set up (.venv with the dev tools) and run every check: ruff, mypy --strict on the whole package,
# the import-linter contracts, pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev

# Compiled modules are kept between runs, outside the source tree (.venv/pycache), also where the
# environment turns writing them off (PYTHONDONTWRITEBYTECODE): otherwise every pytest worker compiles
# and assert-rewrites all test modules again (about 8 s of CPU each) and every `pear` a test starts
# compiles the package again.
export PYTHONPYCACHEPREFIX="$PWD/.venv/pycache"
unset PYTHONDONTWRITEBYTECODE

# Property tests draw a third of the examples their tests name (tests/kit/examples.py): they were a tenth
# of the suite's CPU. CI runs the full counts (.ci/run sets PEARGARDEN_EXAMPLES=all); so does a plain
# pytest, and so does this script when PEARGARDEN_EXAMPLES=all is set.
export PEARGARDEN_EXAMPLES="${PEARGARDEN_EXAMPLES:-quick}"

# The web tests drive Debian's chromium (never a downloaded browser): its old headless mode,
# chromium-headless-shell, when installed (a third less CPU than /usr/bin/chromium's new headless mode,
# which draws a whole browser window; tests/web/web_harness.py). CJK text needs a font.
# Without a browser they cannot run, and a run that skipped them all would pass without having looked
# at one page: that is a failure here (PEARGARDEN_BROWSER=required makes tests/web fail rather than skip)
# unless PEARGARDEN_NO_BROWSER=1 says to run without them. PEARGARDEN_TEST_CHROMIUM names the browser.
if [ "${PEARGARDEN_NO_BROWSER:-}" = 1 ]; then
  export PEARGARDEN_BROWSER=optional
else
  export PEARGARDEN_BROWSER=required
fi
no_browser() {
  if [ "$PEARGARDEN_BROWSER" = required ]; then
    echo "test.sh: $1: the browser tests cannot run, so this run fails" >&2
    echo "         (install: sudo apt-get install chromium chromium-headless-shell fonts-wqy-microhei;" >&2
    echo "          or PEARGARDEN_NO_BROWSER=1 bash scripts/test.sh to run without them)" >&2
    exit 1
  fi
  echo "test.sh: $1; the browser tests will be skipped (PEARGARDEN_NO_BROWSER=1)" >&2
}
missing=()
if [ -n "${PEARGARDEN_TEST_CHROMIUM:-}" ]; then
  [ -x "$PEARGARDEN_TEST_CHROMIUM" ] || no_browser "$PEARGARDEN_TEST_CHROMIUM is no browser"
else
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
fi
fc-list 2>/dev/null | grep -qi "wenquanyi\|wqy" || missing+=(fonts-wqy-microhei)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing ${missing[*]} for the browser tests"
    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}") >/dev/null
  elif [ -z "${PEARGARDEN_TEST_CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-headless-shell ]; then
    no_browser "/usr/bin/chromium is missing"
  else
    echo "test.sh: ${missing[*]} not installed; the browser tests run slower or without CJK glyphs" >&2
    echo "         (install: sudo apt-get install ${missing[*]})" >&2
  fi
fi
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== import-linter (layers, the fronts' imports, no cycles: .importlinter)"
.venv/bin/lint-imports --no-cache
# mypy runs beside pytest: the test workers leave a core idle part of the time (waiting on child
# processes, servers, the browser). Its report is printed after pytest's; either failing fails this
# script. Its cache lives outside the tree, as pip's cache keeps built wheels, so a fresh clone on a
# machine that ran the checks before starts warm (about 1 s of CPU instead of 25-35 s). A stale cache
# cannot hide an error: mypy re-checks any file whose size or content hash differs from what the
# cache recorded, and drops the cache on another mypy version or other options. MYPY_CACHE_DIR, if
# set, wins.
mypy_cache=${MYPY_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/peargarden/mypy}
mypy_log=$(mktemp)
trap 'rm -f "$mypy_log"' EXIT
# The browser tests are checked too (typed against Playwright's Page, so a misspelt locator call
# is an error before the browser runs); their cache is kept apart, their options differ.
(
  .venv/bin/mypy --cache-dir "$mypy_cache" &&
    MYPYPATH=tests:tests/web .venv/bin/mypy --cache-dir "$mypy_cache-tests" --strict --explicit-package-bases tests/web
) >"$mypy_log" 2>&1 &
mypy_pid=$!
# The tests' temporary folders (data folders, vaults, chats, chromium's profile and shared memory) go
# to /dev/shm when it is a tmpfs with room: the code under test fsyncs every write, which on a disk is
# seconds of waiting per run that a test does not need (the crash tests kill processes, which fsync
# does not guard against anyway). pytest keeps its last three runs' folders there. A TMPDIR already set wins.
if [ -z "${TMPDIR:-}" ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] \
  && [ "$(( $(stat -f -c '%a * %S' /dev/shm) ))" -ge 4000000000 ]; then
  export TMPDIR="/dev/shm/peargarden-tests-$(id -u)"
  mkdir -p "$TMPDIR"
fi
if [ "$PEARGARDEN_EXAMPLES" = quick ]; then
  echo "== pytest (mypy --strict runs alongside; its report follows; property tests at a third of their examples: PEARGARDEN_EXAMPLES=all for all)"
else
  echo "== pytest (mypy --strict runs alongside; its report follows)"
fi
set +e
# One worker per core plus two (pytest-xdist). The workers are idle part of the time — retry back-offs,
# a hung model worker's silence limit, waiting on `pear` processes, the fake model and the browser — and
# the spare workers fill those gaps: on 2 cores the machine's cores sat idle 29 – 34 s of a run with
# three workers and 9 – 11 s with four (bench/tree_cpu.py's idle line; docs/benchmarks/test-suite.md).
# worksteal hands queued tests to whichever worker runs dry, so the run does not end on one worker's queue. A later -n or --dist in the arguments wins (-n 0: one process).
workers=$(( $(nproc) + 2 ))
.venv/bin/python -m pytest -n "$workers" --dist worksteal "$@"
status=$?
wait "$mypy_pid"
mypy_status=$?
set -e
echo "== mypy --strict"
cat "$mypy_log"
if [ "$status" = 5 ]; then
  echo "test.sh: pytest collected no tests: that is a failure" >&2
  status=1
fi
if [ "$mypy_status" != 0 ]; then
  echo "test.sh: mypy failed (exit $mypy_status)" >&2
  [ "$status" != 0 ] || status=$mypy_status
fi
exit "$status"
