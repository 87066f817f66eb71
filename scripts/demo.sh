#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, and benchmark the built-in simulator.
# Extra arguments go to `tokbench run` (e.g. --concurrency 32).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh tokbench >/dev/null  # the binary alone: the demo runs no test
exec ./build/tokbench run --num-prompts 64 --concurrency 8 --max-tokens 128 --ignore-eos "$@"
