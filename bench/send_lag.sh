#!/usr/bin/env bash
# Send lag of an open loop (wrk2 / LoadGen discipline): `tokbench run --request-rate R` against the
# simulator in its own process; per arrival shape, SendLag (sent - scheduled) percentiles in µs,
# E2EL from the send and from the intended time, and client CPU. Beside it, this machine's floor:
# bench/wakeup_floor (a bare thread's lateness for 1 ms deadlines, same 100 µs poll as the
# engine), idle and while a run goes on; and each run's own floor, measured before its phase
# (result.json: run.wakeup_floor_p99_ms) with the verdict's note on the two.
# Usage: bench/send_lag.sh [rate=1000] [requests=10000]
# Needs: a build in build/ (scripts/build.sh) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}
FLOOR=./build/bench/wakeup_floor
RATE=${1:-1000}
N=${2:-10000}
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT
$BIN serve-mock --port 0 --ttft-ms 50 --tpot-ms 10 >"$OUT/sim.log" 2>&1 &
SIM=$!
for _ in $(seq 50); do grep -q listening "$OUT/sim.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$OUT/sim.log")/v1/chat/completions"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "simulator: ttft 50 ms, tpot 10 ms, 16 tokens; client: $RATE req/s, $N requests, --concurrency $N"
echo "floor, idle:            $($FLOOR 3000)"
run() {  # arrivals
  $BIN run --url "$URL" --request-rate "$RATE" --arrivals "$1" --concurrency "$N" --num-prompts "$N" \
      --max-tokens 16 --ignore-eos --output-dir "$OUT/runs" --quiet >"$OUT/run.log" 2>&1 || { cat "$OUT/run.log"; exit 1; }
  python3 - "$(grep -o 'results: .*' "$OUT/run.log" | cut -d' ' -f2)/result.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["extra_metrics"]
lag = x["SendLag"]
us = lambda k: f"{1000 * lag[k]:.1f}"
print(f"{sys.argv[2]:<9} send lag µs: mean {us('mean')} median {us('median')} p90 {us('p90')} p99 {us('p99')} "
      f"max {us('max')}; E2EL mean {r['metrics']['E2EL']['mean']:.3f} ms from the send, "
      f"{x['E2EL_FromIntended']['mean']:.3f} ms from the schedule; client CPU {r['run']['client_cpu_s']:.2f} s "
      f"in {r['common']['benchmark_duration'] / 1000:.1f} s; {r['verdict']['status']}")
floor = r["run"].get("wakeup_floor_p99_ms")
print(f"          own wake-up floor p99 {1000 * floor:.1f} µs; " if floor is not None else "          ", end="")
print(next((n for n in r["verdict"].get("notes", []) if "wake-up floor" in n), "no note on the floor"))
PY
}
run poisson
run constant
# The floor while the machine is as busy as during a run (the same run, in the background).
run poisson >/dev/null &
BG=$!
sleep 2
echo "floor, during a run:    $($FLOOR 3000)"
wait $BG
