#!/usr/bin/env bash
# The SSE events per second one client core sustains, measured at saturation rather than
# extrapolated from CPU per event. On two cores the simulator's core tops out before a whole
# client core does, so the client gets a known share of its core instead: a CFS quota (cgroup v1
# cpu controller, QUOTA_US per PERIOD_US, default 1,000 of 2,500 µs = 40 % of core 1; the kernel
# takes no quota under 1 ms, and a short period keeps each throttled stretch short) while the
# simulator has core 0. At each stream count: the client's events/s, its TPOT error against the
# simulator's trace, and the verdict; the figure is the highest events/s with TPOT error ≤ 1 %,
# divided by the share (events per core-second).
# Usage: sudo bench/events_per_core.sh [streams ...]   (default: 256 384 512 640 768)
# Needs: root (the cgroup), a build in build/ (scripts/build.sh), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}
TPOT_MS=${TPOT_MS:-10}
TOKENS=256
PERIOD_US=${PERIOD_US:-2500}
QUOTA_US=${QUOTA_US:-1000}
POINTS=("${@:-256 384 512 640 768}")
CG=/sys/fs/cgroup/cpu/tokbench_bench_$$
if [ ! -d /sys/fs/cgroup/cpu ]; then
  echo "events_per_core.sh: needs the cgroup v1 cpu controller at /sys/fs/cgroup/cpu" >&2
  exit 2
fi
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
OUT=$(mktemp -d)
SIM=
mkdir "$CG"
trap '[ -n "$SIM" ] && kill $SIM 2>/dev/null; rmdir "$CG" 2>/dev/null; rm -rf "$OUT"' EXIT
echo "$PERIOD_US" >"$CG/cpu.cfs_period_us"
echo "$QUOTA_US" >"$CG/cpu.cfs_quota_us"
SHARE=$(python3 -c "print($QUOTA_US / $PERIOD_US)")

source bench/lib.sh
start_simulator "$OUT/sim.log" taskset -c 0 -- --ttft-ms 50 --tpot-ms "$TPOT_MS" --threads 1 --trace "$OUT/trace.jsonl"

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "simulator: core 0, ttft 50 ms, tpot $TPOT_MS ms, $TOKENS tokens; client: core 1 at $SHARE of it ($QUOTA_US/$PERIOD_US µs) ${RUN_ARGS:-}"
printf '%-8s %-10s %-10s %-10s %-10s %-12s %-9s %s\n' streams events_s tpot_err% ttft_err% us_event per_core_s share_used verdict
for c in ${POINTS[@]}; do
  : >"$OUT/trace.jsonl"
  # The client joins the cgroup before it starts (a subshell writes its own pid, then execs).
  sh -c "echo \$\$ > $CG/tasks; exec taskset -c 1 $BIN run --url $URL --concurrency $c --num-prompts $((2 * c)) \
      --max-tokens $TOKENS --ignore-eos ${RUN_ARGS:-} --output-dir $OUT/runs --quiet" >"$OUT/run_$c.log" 2>&1 || rc=$?
  if [ "${rc:-0}" != 0 ] && [ "${rc:-0}" != 4 ]; then cat "$OUT/run_$c.log"; exit 1; fi
  rc=0
  dir=$(grep -o 'results: .*' "$OUT/run_$c.log" | cut -d' ' -f2)
  python3 - "$dir" "$OUT/trace.jsonl" "$c" "$SHARE" <<'PY'
import json, sys
sys.path.insert(0, "bench")
from sim_truth import matched, mean, read_trace
run, trace, c, share = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
r = json.load(open(f"{run}/result.json"))
events, cpu = r["run"]["client_sse_events"], r["run"]["client_cpu_s"]
dur_s = r["common"]["benchmark_duration"] / 1000
pairs = list(matched(run, read_trace(trace)))
tp = [t.tpot_ms for _, t in pairs]
tt = [t.ttft_ms for _, t in pairs]
tpot_err = 100 * (r["metrics"]["TPOT"]["mean"] - mean(tp)) / mean(tp)
ttft_err = 100 * (r["metrics"]["TTFT"]["mean"] - mean(tt)) / mean(tt)
rate = events / dur_s
print(f"{c:<8} {rate:<10.0f} {tpot_err:<+10.3f} {ttft_err:<+10.2f} {1e6 * cpu / events:<10.2f} {rate / share:<12.0f} "
      f"{cpu / dur_s / share:<9.2f} {r['verdict']['status']}")
for w in r["verdict"].get("warnings", []) + r["verdict"].get("reasons", []):
    if "client" in w:
        print(f"         {w[:150]}")
PY
done
