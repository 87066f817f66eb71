#!/usr/bin/env bash
# Process start -> first request at the server (issue 47): the time from just before a process is
# started to when its first completion request reaches the simulator's host (the kernel's receive
# time of its first byte, from serve-mock --trace, on the same monotonic clock), for
#   raw            bench/raw_first_request: connect and send the request, nothing else (the floor)
#   raw + models   the same after a GET /v1/models on its own connection (a careful client's check)
#   tokbench       `tokbench run --num-prompts 1`: parse, pre-flight GET /v1/models, /metrics scrape,
#                  connections warmed, then the request (the socket transport, the default)
#   tokbench curl  the same with --transport libcurl (libcurl and its ~25 libraries loaded)
# Rounds are interleaved (one launch of each per round) so a busy moment hits every row alike.
# Prints each row's median, p10 and p90 and its median over the raw floor's.
# Usage: bench/first_request.sh [ROUNDS]   (default 40). Needs a build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TOKBENCH_BIN:-./build/tokbench}
ROUNDS=${1:-40}
OUT=$(mktemp -d)
trap 'kill $SIM 2>/dev/null; rm -rf "$OUT"' EXIT
source bench/lib.sh
start_simulator "$OUT/sim.log" -- --ttft-ms 1 --tpot-ms 1 --trace "$OUT/trace.jsonl"
PORT=$(echo "$URL" | sed -E 's|.*:([0-9]+)/.*|\1|')
RUN="$BIN run --url $URL --num-prompts 1 --max-tokens 1 --output-dir $OUT/runs --quiet"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "binary: $BIN ($(ldd "$BIN" | grep -c '=>') shared libraries at start); $ROUNDS rounds"
python3 - "$ROUNDS" "$OUT/trace.jsonl" \
  "raw=./build/bench/raw_first_request $PORT" \
  "raw + models=./build/bench/raw_first_request $PORT models" \
  "tokbench=$RUN" \
  "tokbench curl=$RUN --transport libcurl" <<'PY'
import json, subprocess, sys, time
rounds, trace = int(sys.argv[1]), sys.argv[2]
rows = [a.split("=", 1) for a in sys.argv[3:]]
seen = 0
def first_request_ns():
    """The earliest receive time among the trace lines written since the last call."""
    global seen
    lines = open(trace).read().splitlines()
    new, seen = lines[seen:], len(lines)
    if not new:
        sys.exit("the simulator traced no request for the last launch")
    return min(json.loads(l).get("received_ns", json.loads(l)["arrival_ns"]) for l in new)
times = {label: [] for label, _ in rows}
for _ in range(rounds):
    for label, cmd in rows:
        start = time.monotonic_ns()
        done = subprocess.run(cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode not in (0, 4):  # 4 = INVALID: the request was still sent
            sys.exit(f"{label} failed ({done.returncode}): {done.stderr.decode()[-400:]}")
        times[label].append((first_request_ns() - start) / 1e6)
def q(v, p):
    return sorted(v)[min(len(v) - 1, int(p * len(v)))]
floor = q(times[rows[0][0]], 0.5)
print(f"{'':<14} {'median':>8} {'p10':>8} {'p90':>8}  {'/ floor':>7}")
for label, _ in rows:
    v = times[label]
    print(f"{label:<14} {q(v, .5):7.2f}ms {q(v, .1):7.2f}ms {q(v, .9):7.2f}ms  {q(v, .5) / floor:6.1f}x")
PY
