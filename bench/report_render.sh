#!/usr/bin/env bash
# How fast the HTML report opens with many requests: a real run of N tiny requests against the
# built-in simulator, then the page loaded and rendered in headless Chromium (check_html.js).
# Usage: bench/report_render.sh [N]   (default 100000). Needs a build, Debian's chromium and
# npm ci --prefix tests/report.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ulimit -n 65536 2>/dev/null || true
./build/tokbench run --num-prompts "$N" --concurrency 512 --max-tokens 2 --ignore-eos --quiet \
    --output-dir "$OUT" >/dev/null
page=$(ls "$OUT"/*/performances/*/builtin_plot.html)
echo "machine: $(nproc) CPUs; requests: $N; page: $(stat -c %s "$page") bytes"
node tests/report/check_html.js "$page" "$N" "$OUT/shot.png" stream
