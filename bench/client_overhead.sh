#!/usr/bin/env bash
# Benchmarks the benchmark (CONVENTIONS 20): tokbench's accuracy and CPU cost against the
# simulator in a separate process, at several concurrencies. Prints one line per point:
#   client TPOT; the simulator's actual TPOT (from its --trace: when it really wrote each chunk);
#   the client's error against that truth; the simulator's own lateness against its configured
#   TPOT; client CPU µs per SSE event (worker-thread CPU time / events); SSE events per second.
# Usage: bench/client_overhead.sh [concurrency ...]   (default: 1 64 512 2048)
# Needs: a build in build/ (scripts/build.sh) and python3 (to read result.json).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}  # TOKBENCH_BIN: another build, for A/B figures
TPOT_MS=20
TOKENS=256
POINTS=("${@:-1 64 512 2048}")
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT

SIM_THREADS=${SIM_THREADS:-1}
$BIN serve-mock --port 0 --ttft-ms 50 --tpot-ms $TPOT_MS --threads "$SIM_THREADS" --trace "$OUT/trace.jsonl" \
    >"$OUT/sim.log" 2>&1 &
SIM=$!
for _ in $(seq 50); do grep -q listening "$OUT/sim.log" && break; sleep 0.1; done
URL="$(grep -o 'http://[0-9.:]*' "$OUT/sim.log")/v1/chat/completions"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "simulator: ttft 50 ms, tpot $TPOT_MS ms, $TOKENS tokens, $SIM_THREADS thread(s); client: tokbench run"
printf '%-11s %-8s %-11s %-11s %-15s %-14s %-16s %-10s\n' concurrency requests client_tpot sim_tpot \
    "client_err_%" "sim_late_%" "cpu_us_per_event" "events_s"
for c in ${POINTS[@]}; do
  n=$(( c < 8 ? 16 : 2 * c ))
  $BIN run --url "$URL" --concurrency "$c" --num-prompts "$n" --max-tokens $TOKENS --ignore-eos \
      --output-dir "$OUT/runs" --quiet >"$OUT/run_$c.log" 2>&1 || { cat "$OUT/run_$c.log"; exit 1; }
  dir=$(grep -o 'results: .*' "$OUT/run_$c.log" | cut -d' ' -f2)
  python3 - "$dir/result.json" "$OUT/trace.jsonl" "$c" "$n" "$TPOT_MS" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c, n, configured = sys.argv[3], sys.argv[4], float(sys.argv[5])
tpot = r["metrics"]["TPOT"]["mean"]
events = r["run"]["client_sse_events"]
cpu = r["run"]["client_cpu_s"]
dur_s = r["common"]["benchmark_duration"] / 1000
# The simulator's truth: per request, (last content write - first content write) / (tokens - 1).
sim = []
for line in open(sys.argv[2]):
    t = json.loads(line)
    w = [x for x, k in zip(t["t_ns"], t["kinds"]) if k == "C"]
    tokens = sum(k for k, kind in zip(t["tokens"], t["kinds"]) if kind == "C")
    if tokens > 1:
        sim.append((w[-1] - w[0]) / 1e6 / (tokens - 1))
truth = sum(sim) / len(sim)
print(f"{c:<11} {n:<8} {tpot:<11.4f} {truth:<11.4f} {100 * (tpot - truth) / truth:<15.3f} "
      f"{100 * (truth - configured) / configured:<14.3f} {1e6 * cpu / events:<16.3f} {events / dur_s:<10.0f}")
PY
  : >"$OUT/trace.jsonl"  # the next point's truth starts empty (the simulator appends)
done
