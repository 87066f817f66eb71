#!/usr/bin/env bash
# Configures and builds tokbench into build/ (Release with debug info). Used by demo.sh and test.sh.
# Arguments name the targets to build (demo.sh: `tokbench` alone); none builds everything.
set -euo pipefail
cd "$(dirname "$0")/.."
# The HTML report's chart library (embedded at build time), pinned by web/package-lock.json.
if [[ ! -f web/node_modules/echarts/dist/echarts.min.js ]]; then
  npm ci --prefix web --no-audit --no-fund --loglevel=error >/dev/null
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" ${1:+--target "$@"}
