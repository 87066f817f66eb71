#!/usr/bin/env bash
# Tokenizer speed vs HF tokenizers, single thread, same chunks. Needs a build (scripts/build.sh)
# and the test npm packages (npm ci --prefix tests/tokenizer).
# Corpus: GSM8K's test split (English + numbers) where TOKBENCH_GSM8K names it (docs/PERFORMANCE.md's
# figures had it), and this repository's C++ sources (code).
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=tests/tokenizer/node_modules/@lenml
CORPUS=()
[[ -n "${TOKBENCH_GSM8K:-}" && -f "$TOKBENCH_GSM8K" ]] && CORPUS+=("$TOKBENCH_GSM8K")
CORPUS+=($(ls src/*/*.cpp src/*/*.hpp))
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); corpus: ${#CORPUS[@]} files"
for m in deepseek_v3 llama3 qwen3 llama2 gemma3; do
  dir=$FIX/tokenizer-$m/models
  echo "== $m ($(stat -c %s "$dir/tokenizer.json") bytes of tokenizer.json)"
  echo "tokbench: $(./build/bench/tokenizer_bench "$dir" "${CORPUS[@]}" | tr '\n' ';')"
  echo "hf:       $(node bench/tokenizer_hf.js "$dir" "${CORPUS[@]}" | tr '\n' ';')"
done
