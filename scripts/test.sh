#!/usr/bin/env bash
# Set up (.venv with the dev tools) and run every check: ruff, mypy --strict on the core, pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy --strict (core packages)"
.venv/bin/mypy
echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" = 5 ]; then
  echo "test.sh: pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$status"
