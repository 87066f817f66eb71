#!/usr/bin/env bash
# scripts/fuzz_gate.sh NAME RUNS [CORPUS]: runs build-fuzz/fuzz/fuzz_NAME briefly from its seed
# corpus (fuzz/corpus/NAME, or CORPUS) with a fixed seed, and fails — exit 1, naming the input
# it kept — when the target crashes, leaks, times out, runs out of memory or exits non-zero.
# scripts/test.sh runs it for every target, and once on a target built to crash, so a gate that
# cannot fail is caught (docs/FUZZING.md).
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1
runs=$2
seeds=${3:-fuzz/corpus/$name}
work=build-fuzz/corpus/$name
found=build-fuzz/found/$name
rm -rf "$found"
mkdir -p "$work" "$found"
log=build-fuzz/found/$name.log
# -timeout: a single input over 10 s is a hang; -rss_limit_mb: an input that takes 2 GB is an oom.
build-fuzz/fuzz/fuzz_"$name" "$work" "$seeds" -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$found/" -print_final_stats=1 >"$log" 2>&1
status=$?
grep -E 'stat::number_of_executed_units|ERROR|runtime error|SUMMARY' "$log"
kept=$(find "$found" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -1)
if [ "$status" -ne 0 ] || [ -n "$kept" ]; then
  echo "fuzz: $name failed (exit $status${kept:+; input kept: $kept}): reproduce with build-fuzz/fuzz/fuzz_$name ${kept:-FILE}; log: $log" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
