#!/usr/bin/env bash
# The quick start's first command builds only what it runs: the targets scripts/demo.sh asks
# scripts/build.sh for, as ninja would build them from scratch in a freshly configured folder
# (`ninja -t commands`: nothing is compiled), compile tokbench's sources and not one file of
# tests/ or bench/ (the whole build compiles them: the check can fail).
# Usage: demo_build_check.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC=$1
OUT=$2
targets=$(sed -n 's/^bash scripts\/build.sh \([a-z_ ]*\).*/\1/p' "$SRC/scripts/demo.sh" | head -1 | xargs)
if [[ -z "$targets" ]]; then
  echo "scripts/demo.sh does not name its build targets (bash scripts/build.sh TARGET ...)" >&2
  exit 1
fi
rm -rf "$OUT"
cmake -S "$SRC" -B "$OUT" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
plan=$(ninja -C "$OUT" -t commands $targets)
all=$(ninja -C "$OUT" -t commands)
grep -qE '(tests|bench)/[A-Za-z_]+\.cpp' <<<"$all" || { echo "the check sees no test file in the whole build" >&2; exit 1; }
if grep -E '(tests|bench)/[A-Za-z_]+\.cpp' <<<"$plan" >/dev/null; then
  echo "the demo's build ($targets) would compile test or bench files:" >&2
  grep -E '(tests|bench)/[A-Za-z_]+\.cpp' <<<"$plan" | head -5 >&2
  exit 1
fi
grep -q 'src/cli/main.cpp' <<<"$plan" || { echo "the demo's build ($targets) does not build tokbench" >&2; exit 1; }
echo "demo build ($targets): $(grep -c ' -c ' <<<"$plan") compile steps, none from tests/ or bench/"
rm -rf "$OUT"
