#!/usr/bin/env bash
# Set up (.venv with the dev tools) and run every check: ruff, mypy --strict on the whole package,
# the import-linter contracts, pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev

# The web tests drive Debian's chromium (never a downloaded browser); CJK text needs a font.
if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "wenquanyi\|wqy"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing chromium and fonts-wqy-microhei for the browser tests"
    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-wqy-microhei) >/dev/null
  else
    echo "test.sh: /usr/bin/chromium is missing; the browser tests will be skipped" >&2
    echo "         (install: sudo apt-get install chromium fonts-wqy-microhei)" >&2
  fi
fi
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy --strict"
.venv/bin/mypy
echo "== import-linter (layers, the fronts' imports, no cycles: .importlinter)"
.venv/bin/lint-imports --no-cache
echo "== pytest"
set +e
# One worker per core (pytest-xdist); a later -n in the arguments wins (-n 0: one process).
.venv/bin/python -m pytest -n auto "$@"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "test.sh: pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
