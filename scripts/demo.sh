#!/usr/bin/env bash
# Install, start the rule-baseline endpoint on a free loopback port, run the benchmark on the
# embedded DEMO data through lm_eval, print the results table, stop the endpoint, and write the
# leaderboard as one HTML page (results/demo/leaderboard.html; its path is printed).
# Usage: bash scripts/demo.sh [TASKS]      (default: cpsd)   Extra lm_eval options: CPSD_EVAL_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
TASKS=${1:-cpsd}
LOG=$(mktemp)
.venv/bin/cpsd-baseline-server --port 0 > "$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -f "$LOG"' EXIT
for _ in $(seq 50); do grep -q listening "$LOG" && break; sleep 0.2; done
URL=$(grep -o 'http://[^ ]*' "$LOG")
echo "rule baseline at $URL"
.venv/bin/cpsd-eval --model cpsd-local-chat \
  --model_args "base_url=$URL,model=baseline,num_concurrent=8" \
  --apply_chat_template --tasks "$TASKS" --output_path results/demo --log_samples ${CPSD_EVAL_ARGS:-}
PAGE=results/demo/leaderboard.html
LB_LOG=$(mktemp)
if ! .venv/bin/cpsd-leaderboard results/demo --with-paper --quiet --html "$PAGE" 2> "$LB_LOG"; then
  cat "$LB_LOG" >&2; rm -f "$LB_LOG"; exit 1
fi
grep -v '^INFO ' "$LB_LOG" | grep -v 'wrote the HTML page' >&2 || true
rm -f "$LB_LOG"
echo "leaderboard page: $(pwd)/$PAGE (open it in a browser; one self-contained file)"
