#!/usr/bin/env bash
# Multi-host run on one machine: N ranks under mpirun against the simulator (TTFT 20 ms, TPOT
# 10 ms, 16 tokens), R requests at concurrency C. Prints the merged TPOT (mean) against the
# simulator's 10 ms and each rank's health note (CPU, events/s, clock offset and its bound).
# Usage: bench/multihost.sh [ranks=3] [requests=300] [concurrency=24]
# Needs: a build in build/ with Open MPI (scripts/setup.sh, scripts/build.sh) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}
NP=${1:-3}
N=${2:-300}
C=${3:-24}
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT
$BIN serve-mock --port 0 --ttft-ms 20 --tpot-ms 10 >"$OUT/sim.log" 2>&1 &
SIM=$!
for _ in $(seq 50); do grep -q listening "$OUT/sim.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$OUT/sim.log")/v1/chat/completions"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
root=()
[[ $(id -u) -eq 0 ]] && root=(--allow-run-as-root)
mpirun "${root[@]}" --oversubscribe -np "$NP" "$BIN" run --url "$URL" --num-prompts "$N" --concurrency "$C" \
    --max-tokens 16 --ignore-eos --quiet --output-dir "$OUT/runs" >/dev/null
python3 - "$(ls -d "$OUT"/runs/*/)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "result.json"))
t = r["metrics"]["TPOT"]
print(f"verdict {r['verdict']['status']}; merged TPOT mean {t['mean']:.4f} ms over {t['n']} requests (simulator: 10 ms)")
for n in r["verdict"].get("notes", []):
    print("  " + n)
PY
