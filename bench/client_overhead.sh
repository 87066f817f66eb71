#!/usr/bin/env bash
# Benchmarks the benchmark (CONVENTIONS 20): tokbench's accuracy and CPU cost against the
# simulator in a separate process, at several concurrencies. Prints one line per point:
#   client TPOT; the simulator's actual TPOT (from its --trace: when it really wrote each chunk);
#   the client's error against that truth; the simulator's own lateness against its configured
#   TPOT; client CPU µs per SSE event (worker-thread CPU time / events); SSE events per second.
# Usage: bench/client_overhead.sh [concurrency ...]   (default: 1 64 512 2048)
# Needs: a build in build/ (scripts/build.sh; bench/raw_sse_floor for FLOOR=1) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}  # TOKBENCH_BIN: another build, for A/B figures
TPOT_MS=${TPOT_MS:-20}
TOKENS=256
POINTS=("${@:-1 64 512 2048}")
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT

SIM_THREADS=${SIM_THREADS:-1}
WARM=${WARM:-auto}          # --warm-connections: auto (on here), on or off (cold-start TTFT)
SIM_PIN=${SIM_PIN:-}        # e.g. "taskset -c 0": pin the simulator to one core
CLIENT_PIN=${CLIENT_PIN:-}  # e.g. "taskset -c 1": pin the client to another
source bench/lib.sh
start_simulator "$OUT/sim.log" $SIM_PIN -- --ttft-ms 50 --tpot-ms "$TPOT_MS" --threads "$SIM_THREADS" --trace "$OUT/trace.jsonl"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "simulator: ttft 50 ms, tpot $TPOT_MS ms, $TOKENS tokens, $SIM_THREADS thread(s); client: tokbench run --warm-connections $WARM"
printf '%-6s %-6s %-9s %-9s %-8s %-9s %-9s %-8s %-9s %-9s %-9s %-8s %-10s\n' conc reqs client_tpot sim_tpot \
    "tpot_err%" client_ttft sim_ttft "ttft_err%" "send>recv" "sim_read" "write>rd" "us/event" events_s
for c in ${POINTS[@]}; do
  n=$(( c < 8 ? 16 : 2 * c ))
  $CLIENT_PIN $BIN run --url "$URL" --concurrency "$c" --num-prompts "$n" --max-tokens $TOKENS --ignore-eos \
      --warm-connections "$WARM" ${RUN_ARGS:-} --output-dir "$OUT/runs" --quiet >"$OUT/run_$c.log" 2>&1 || rc=$?
  # 4 = INVALID (the verdict is printed below): its numbers are still compared with the truth.
  if [ "${rc:-0}" != 0 ] && [ "${rc:-0}" != 4 ]; then cat "$OUT/run_$c.log"; exit 1; fi
  rc=0
  dir=$(grep -o 'results: .*' "$OUT/run_$c.log" | cut -d' ' -f2)
  python3 - "$dir" "$OUT/trace.jsonl" "$c" "$n" <<'PY'
import json, sys
sys.path.insert(0, "bench")
from sim_truth import matched, mean, read_trace
run, trace, c, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
r = json.load(open(f"{run}/result.json"))
origin = json.load(open(f"{run}/manifest.json"))["origin_steady_ns"]
tpot = r["metrics"]["TPOT"]["mean"]
ttft = r["metrics"]["TTFT"]["mean"]
events = r["run"]["client_sse_events"]
cpu = r["run"]["client_cpu_s"]
dur_s = r["common"]["benchmark_duration"] / 1000
tp, tt, to_server, to_client, read_lag = [], [], [], [], []
for d, t in matched(run, read_trace(trace)):
    tp.append(t.tpot_ms)
    tt.append(t.ttft_ms)
    read_lag.append((t.arrival_ns - t.received_ns) / 1e6)
    to_server.append((t.received_ns - origin - d["timing_ns"]["sent"]) / 1e6)
    to_client.append((d["timing_ns"]["first_token"] + origin - t.first_write_ns) / 1e6)
st, sf = mean(tp), mean(tt)
print(f"{c:<6} {n:<6} {tpot:<9.4f} {st:<9.4f} {100 * (tpot - st) / st:<+8.3f} {ttft:<9.3f} {sf:<9.3f} "
      f"{100 * (ttft - sf) / sf:<+8.2f} {mean(to_server):<9.3f} {mean(read_lag):<9.3f} {mean(to_client):<9.3f} "
      f"{1e6 * cpu / events:<8.3f} {events / dur_s:<10.0f} {r['verdict']['status']}")
for reason in r["verdict"].get("reasons", []):
    print(f"       INVALID: {reason}")
PY
  if [ "${FLOOR:-0}" = 1 ]; then
    : >"$OUT/trace.jsonl"
    floor=$($CLIENT_PIN ./build/bench/raw_sse_floor "$(echo "$URL" | sed -E 's|.*:([0-9]+)/.*|\1|')" "$c" "$n" $TOKENS | grep -o '[0-9.]* us CPU per event' | cut -d' ' -f1)
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); cpu=r['run']['client_cpu_s']; ev=r['run']['client_sse_events']; \
w=r['common']['benchmark_duration']/1000; print(f'       floor {float(sys.argv[2]):.3f} us/event; tokbench/floor {1e6*cpu/ev/float(sys.argv[2]):.2f}x; client CPU share {cpu/w:.2f} of a core')" \
      "$dir/result.json" "$floor"
  fi
  : >"$OUT/trace.jsonl"  # the next point's truth starts empty (the simulator appends)
done
