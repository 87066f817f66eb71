#!/usr/bin/env bash
# Trace replay (--dataset trace:PATH): a synthetic Mooncake trace of N lines at R req/s (four
# families sharing two leading blocks, two blocks of their own each) against the simulator's prefix
# cache, both with the same tokenizer and block size. Prints the schedule lag (SendLag
# percentiles), and the prefix-cache share the trace implies beside the one the simulator reported.
# Usage: bench/trace_replay.sh TOKENIZER_DIR [lines=200] [rate=100]
# Needs: a build in build/ (scripts/build.sh) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}
TOK=${1:?usage: bench/trace_replay.sh TOKENIZER_DIR [lines] [rate]}
N=${2:-200}
RATE=${3:-100}
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT
python3 - "$N" "$RATE" >"$OUT/trace.jsonl" <<'PY'
import json, sys
n, rate = int(sys.argv[1]), float(sys.argv[2])
for i in range(n):
    f = i % 4
    print(json.dumps({"timestamp": i * 1000.0 / rate, "input_length": 64, "output_length": 4,
                      "hash_ids": [f * 100 + 1, f * 100 + 2, 10000 + i * 10, 10001 + i * 10]}))
PY
$BIN serve-mock --port 0 --ttft-ms 5 --tpot-ms 2 --enable-prefix-caching --block-size 16 --tokenizer "$TOK" \
    >"$OUT/sim.log" 2>&1 &
SIM=$!
for _ in $(seq 50); do grep -q listening "$OUT/sim.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$OUT/sim.log")/v1/completions"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
$BIN run --url "$URL" --dataset "trace:$OUT/trace.jsonl" --trace-block-size 16 --tokenizer "$TOK" --concurrency 256 \
    --output-dir "$OUT/runs" --quiet >"$OUT/run.log" 2>&1 || { cat "$OUT/run.log"; exit 1; }
python3 - "$(grep -o 'results: .*' "$OUT/run.log" | cut -d' ' -f2)/result.json" "$N" "$RATE" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lag = r["extra_metrics"]["SendLag"]
print(f"trace: {sys.argv[2]} lines at {sys.argv[3]} req/s; verdict {r['verdict']['status']}")
print("send lag (µs): p50 {:.0f}  p90 {:.0f}  p99 {:.0f}  max {:.0f}".format(*(1000 * lag[k] for k in ("median", "p90", "p99", "max"))))
for n in r["notes"]:
    if n.startswith("prefix cache"):
        print(n)
PY
