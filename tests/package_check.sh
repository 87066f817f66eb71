#!/usr/bin/env bash
# The Debian package, made by CPack from this build tree and unpacked with dpkg-deb -x into a
# scratch root (never installed on this machine): a stripped binary whose debug info is in the
# -dbgsym package, Depends computed from its libraries, a version from git, the man pages,
# completions, docs and licences in their FHS places; the unpacked binary says its version,
# serves the simulator and runs a VALID benchmark against it; its man pages render cleanly.
# Usage: package_check.sh BUILD_DIR OUT_DIR
set -euo pipefail
BUILD=$1
OUT=$2
fail() { echo "package_check: $*" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT"
cpack -G DEB --config "$BUILD/CPackConfig.cmake" > cpack.log 2>&1 || { cat cpack.log; fail "cpack failed"; }
deb=$(ls tokbench_*_amd64.deb) || fail "no tokbench_<version>_amd64.deb: $(ls)"
ddeb=$(ls tokbench-dbgsym_*_amd64.ddeb) || fail "no -dbgsym package: $(ls)"
# Every check reads a captured output: `producer | grep -q` under pipefail fails at random when grep
# exits before a long listing is written (dpkg-deb then dies of SIGPIPE).
version=$(dpkg-deb -f "$deb" Version)
grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(\+git[0-9]{8}\.[0-9a-f]{12})?$' <<<"$version" || fail "version not from git: $version"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libcurl4 libsqlite3-0 libsimdjson libc6 libopenmpi3; do  # libcurl and SQLite are loaded at run time: named by hand
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
debug_files=$(dpkg-deb -c "$ddeb")
grep -q 'usr/lib/debug/.build-id/.*\.debug' <<<"$debug_files" || fail "the -dbgsym package holds no debug info"
dpkg-deb -x "$deb" root
BIN=root/usr/bin/tokbench
kind=$(file -L "$BIN")
grep -q ', stripped' <<<"$kind" || fail "the packaged binary is not stripped: $kind"
for f in usr/share/man/man1/tokbench.1.gz usr/share/man/man1/tokbench-run.1.gz usr/share/man/man1/tokbench-serve-mock.1.gz \
         usr/share/bash-completion/completions/tokbench usr/share/zsh/vendor-completions/_tokbench \
         usr/share/doc/tokbench/README.md usr/share/doc/tokbench/METRICS.md usr/share/doc/tokbench/copyright \
         usr/share/doc/tokbench/echarts/LICENSE usr/share/doc/tokbench/zrender/LICENSE \
         usr/lib/tokbench/tokbench-mpi.so; do
  [[ -s root/$f ]] || fail "missing from the package: /$f"
done
version_text=$("$BIN" --version 2>&1) || fail "--version failed: $version_text"
grep -q '^tokbench ' <<<"$version_text" || fail "--version: $version_text"
# The pages render, with no roff warning, and say what they should.
for page in tokbench tokbench-run; do
  MANWIDTH=100 man --warnings -l "root/usr/share/man/man1/$page.1.gz" > "$page.txt" 2> "$page.warnings" ||
    fail "man -l $page: $(cat "$page.warnings")"
  [[ ! -s $page.warnings ]] || fail "man -l $page warns: $(cat "$page.warnings")"
done
grep -q -- '--concurrency' tokbench-run.txt || fail "tokbench-run(1) lacks --concurrency"
grep -q 'EXIT STATUS' tokbench.txt || fail "tokbench(1) lacks EXIT STATUS"
# The unpacked binary serves the simulator on loopback and benchmarks it.
"$BIN" serve-mock --port 0 --ttft-ms 1 --tpot-ms 1 > mock.log 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null || true' EXIT
port=""
for _ in $(seq 100); do
  port=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' mock.log | grep -oE '[0-9]+$' || true)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || fail "serve-mock did not start: $(cat mock.log)"
"$BIN" run --url "http://127.0.0.1:$port/v1/chat/completions" --num-prompts 8 --concurrency 2 --max-tokens 8 \
  --ignore-eos --quiet --output-dir runs > run.log 2>&1 || fail "run against the packaged simulator: $(cat run.log)"
grep -q 'verdict: VALID' run.log || fail "run not VALID: $(cat run.log)"
echo "package_check: $(du -k "$deb" | cut -f1) KiB package, $(du -k "$BIN" | cut -f1) KiB binary, checked"
