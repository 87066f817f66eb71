#!/usr/bin/env bash
# Integration test of the HTML pages in a real browser: real runs against the built-in simulator
# (streaming with time slices, non-streaming, --check-answers), a compare page, a sweep's and a search's pages,
# a page made from 200,000 requests (bounded, sampled, every failure kept), a run with --telemetry
# (the devices' panel), a server grid's page, the results store's dashboard and --live's page of a
# running point, each checked in headless Chromium.
# Usage: check_report.sh TOKBENCH_BINARY OUT_DIR
set -euo pipefail
BIN=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
if [[ ! -x /usr/bin/chromium ]]; then
  echo "SKIP: /usr/bin/chromium is not installed (scripts/test.sh installs Debian's chromium)"
  exit 77
fi
if [[ ! -d "$HERE/node_modules/playwright-core" ]]; then
  echo "missing playwright-core: run npm ci --prefix tests/report (scripts/test.sh does)" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT"
# tb_run FLAGS... (with --output-dir DIR): `tokbench run`, VALID, or INVALID only for what a busy
# test machine causes (busy_only.js reads DIR): the pages are checked either way.
tb_run() {
  local rc=0 dir="" prev=""
  for a in "$@"; do
    [[ $prev == --output-dir ]] && dir=$a
    prev=$a
  done
  "$BIN" run "$@" || rc=$?
  [[ $rc -eq 0 ]] && return 0
  [[ $rc -eq 4 && -n $dir ]] && node "$HERE/busy_only.js" "$dir" >&2 && return 0
  echo "tokbench run $* exited $rc" >&2
  exit 1
}
tb_run --num-prompts 30 --concurrency 6 --max-tokens 16 --ignore-eos --slice-s 0.1 --quiet --output-dir "$OUT/stream" >/dev/null
tb_run --num-prompts 12 --concurrency 4 --max-tokens 8 --no-stream --quiet --output-dir "$OUT/nostream" >/dev/null
tb_run --num-prompts 30 --concurrency 2 --max-tokens 16 --ignore-eos --quiet --output-dir "$OUT/stream2" >/dev/null
node "$HERE/check_html.js" "$(ls "$OUT"/stream/*/performances/*/builtin_plot.html)" 30 "$OUT/stream.png" stream
node "$HERE/check_html.js" "$(ls "$OUT"/nostream/*/performances/*/builtin_plot.html)" 12 "$OUT/nostream.png" nostream
# --check-answers on a GSM8K-format file made here (the built-in simulator answers it): the
# Accuracy card and the answers table.
for i in $(seq 0 23); do
  printf '{"question": "Problem %d: A farmer has %d hens and buys %d more. How many hens now?", "answer": "%d + %d = <<%d+%d=%d>>%d\\n#### %d"}\n' \
    "$i" "$i" 7 "$i" 7 "$i" 7 $((i + 7)) $((i + 7)) $((i + 7))
done >"$OUT/gsm8k.jsonl"
tb_run --dataset "gsm8k:$OUT/gsm8k.jsonl" --check-answers --num-prompts 24 --concurrency 8 \
  --quiet --output-dir "$OUT/answers" >/dev/null
node "$HERE/check_html.js" "$(ls "$OUT"/answers/*/performances/*/gsm8k_plot.html)" 24 "$OUT/answers.png" answers
test -s "$OUT/stream.png" && test -s "$OUT/nostream.png"
# compare across two load points (concurrency 6 and 2): its page carries the throughput-latency curve.
"$BIN" compare "$(ls -d "$OUT"/stream/*/)" "$(ls -d "$OUT"/stream2/*/)" --html "$OUT/compare.html" >/dev/null
node "$HERE/check_compare.js" "$OUT/compare.html" 2
node "$HERE/check_page.js" "$(ls "$OUT"/stream/*/performances/*/builtin_plot.html)" TOKBENCH slices
# A sweep's and a search's pages: their curves drawn, nothing fetched.
tb_run --concurrency 1,2,4 --num-prompts 10 --max-tokens 4 --quiet --output-dir "$OUT/sweep" >/dev/null
# Loads 1, 2, 4: a log2 axis; each latency on its own chart.
node "$HERE/check_page.js" "$(ls "$OUT"/sweep/*/sweep/sweep.html)" TOKBENCH_SWEEP curve,pareto,lat-ttft,lat-tpot,lat-e2el x_axis=log
tb_run --search max-concurrency --slo 'e2el.p99<=10s' --search-max 2 --num-prompts 10 --max-tokens 2 --quiet \
  --output-dir "$OUT/search" >/dev/null
node "$HERE/check_page.js" "$(ls "$OUT"/search/*/search/search.html)" TOKBENCH_SEARCH probes
tb_run --adaptive-window-s 0.5 --slo 'e2el.p99<=10s' --duration-s 1.5 --grace-s 0.5 --adaptive-max 4 --max-tokens 2 \
  --quiet --output-dir "$OUT/adaptive" >/dev/null
node "$HERE/check_page.js" "$(ls "$OUT"/adaptive/*/performances/*/builtin_plot.html)" TOKBENCH adaptive
# Multi-turn sessions: the per-turn chart.
tb_run --turns 3 --num-prompts 4 --concurrency 2 --max-tokens 4 --quiet --output-dir "$OUT/turns" >/dev/null
node "$HERE/check_page.js" "$(ls "$OUT"/turns/*/performances/*/builtin_plot.html)" TOKBENCH turns
# Two traffic classes on the simulator's priority scheduling: each class's requests in its colour.
tb_run --class 'name=chat,concurrency=2,num-prompts=10,priority=0' \
  --class 'name=batch,concurrency=4,num-prompts=20,priority=10' --max-tokens 8 --ignore-eos --quiet \
  --output-dir "$OUT/classes" >/dev/null
# Every chart's bars stacked by class: each class's requests, token gaps and tokens (8 a request).
node "$HERE/check_page.js" "$(ls "$OUT"/classes/*/performances/*/builtin_plot.html)" TOKBENCH \
  timeline,dist-ttft,dist-tpot,dist-itl,dist-e2el,throughput class_drawn=chat:10,batch:20 \
  'class_bars=TTFT:chat=10,batch=20;TPOT:chat=10,batch=20;ITL:chat=70,batch=140;E2EL:chat=10,batch=20;tokens:chat=80,batch=160'
# A page made from 200,000 requests, 1 in 1,000 failed by the simulator: at most 10 MB, its timeline
# a stated sample that keeps every failure, every panel drawn (the run is INVALID: exit 4).
# start_sim NAME FLAGS...: a simulator on a free port, logged to $OUT/NAME.log; sets $port; stopped on exit.
sims=""
trap 'kill $sims 2>/dev/null || true' EXIT
start_sim() {
  local name=$1
  shift
  "$BIN" serve-mock --port 0 "$@" > "$OUT/$name.log" 2>&1 &
  sims="$sims $!"
  port=""
  for _ in $(seq 100); do
    port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$OUT/$name.log" | grep -oE '[0-9]+$' || true)
    [[ -n $port ]] && return 0
    sleep 0.1
  done
  echo "serve-mock ($name) did not start: $(cat "$OUT/$name.log")" >&2
  exit 1
}
start_sim mock --ttft-ms 0 --tpot-ms 0 --fail-every 1000
rc=0
"$BIN" run --url "http://127.0.0.1:$port/v1/chat/completions" --num-prompts 200000 --concurrency 128 --max-tokens 2 \
  --ignore-eos --quiet --output-dir "$OUT/big" >/dev/null || rc=$?
[[ $rc -eq 4 ]] || { echo "the 200,000-request run exited $rc, expected 4 (INVALID: 200 failures)" >&2; exit 1; }
big=$(ls "$OUT"/big/*/performances/*/builtin_plot.html)
size=$(stat -c %s "$big")
(( size <= 10 * 1024 * 1024 )) || { echo "the 200,000-request page is $size bytes, over 10 MiB" >&2; exit 1; }
node "$HERE/check_html.js" "$big" 200000 "$OUT/big.png" stream
# --telemetry against the simulator's devices: their power and utilisation drawn on the run's time axis.
start_sim devices --ttft-ms 20 --tpot-ms 5 --devices 2
dport=$port
tb_run --url "http://127.0.0.1:$dport" --num-prompts 24 --concurrency 4 --max-tokens 24 --ignore-eos --quiet \
  --telemetry "http://127.0.0.1:$dport/device-metrics" --telemetry-interval-ms 100 --price-per-device-hour 2 \
  --output-dir "$OUT/devices" >/dev/null
# The energy and the cost as text on the page, not a canvas subtitle.
node "$HERE/check_page.js" "$(ls "$OUT"/devices/*/performances/*/builtin_plot.html)" TOKBENCH devices \
  'energy_cost~J/output token' 'energy_cost~/M output tokens' tick_example=4.6 \
  'layout~devices:legend=bottom,ymin=0/0,ticks=short' 'layout~server:legend=bottom,ymin=0' 'layout~gauges=scatter/scatter'
# A priced sweep: its cost against per-user speed drawn.
tb_run --url "http://127.0.0.1:$dport" --concurrency 1,4 --num-prompts 8 --max-tokens 16 --ignore-eos --quiet \
  --telemetry "http://127.0.0.1:$dport/device-metrics" --telemetry-interval-ms 100 --price-per-device-hour 2 \
  --output-dir "$OUT/priced" >/dev/null
node "$HERE/check_page.js" "$(ls "$OUT"/priced/*/sweep/sweep.html)" TOKBENCH_SWEEP curve,pareto,cost priced=2
# A server grid of two simulators (--max-num-seqs 1 and 4) x two loads: every configuration's
# curves drawn on shared axes, the one serving more recommended.
gport=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
tb_run --url "http://127.0.0.1:$gport/v1/chat/completions" --server-grid 'max_num_seqs=1,4' \
  --server-cmd "$BIN serve-mock --port {port} --max-num-seqs {max_num_seqs} --ttft-ms 5 --tpot-ms 5" \
  --concurrency 1,4 --num-prompts 8 --max-tokens 8 --ignore-eos --slo 'tpot.p99<=1000ms' --quiet \
  --output-dir "$OUT/grid" >/dev/null
# The --slo bound drawn where the points are judged.
node "$HERE/check_page.js" "$(ls "$OUT"/grid/*/grid/grid.html)" TOKBENCH_GRID curve,lat-ttft,lat-tpot,front \
  configurations=2 drawn=2 best=max_num_seqs-4 tpot_bound_ms=1000
# The results store's dashboard: four runs recorded, a panel per metric drawn, nothing fetched.
for i in 1 2 3 4; do
  tb_run --num-prompts 8 --concurrency 2 --max-tokens 4 --quiet --output-dir "$OUT/hist" --history "$OUT/hist.db" \
    --label n=$i >/dev/null
done
"$BIN" history page --history "$OUT/hist.db" --out "$OUT/history.html" >/dev/null
node "$HERE/check_page.js" "$OUT/history.html" TOKBENCH_HISTORY p0,p1,p2,p3,p4,p5,p6,p7 panels=8
# --live: the page of a point while it runs (40 requests at 4/s: ~10 s), checked mid-run in Chromium.
lport=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
tb_run --live "127.0.0.1:$lport" --request-rate 4 --num-prompts 40 --max-tokens 16 --quiet \
  --output-dir "$OUT/live" >/dev/null &
live_pid=$!
node "$HERE/check_live.js" "http://127.0.0.1:$lport/" "$OUT/live.png"
wait "$live_pid"
echo "report pages checked in Chromium: $OUT/stream.png $OUT/nostream.png $OUT/live.png"
