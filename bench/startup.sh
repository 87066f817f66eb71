#!/usr/bin/env bash
# Start-up time: the median wall time of N runs each of /bin/true (the floor of starting a
# process here), `tokbench --version`, `tokbench man --list` (the whole option table built) and
# an empty C++ program linked like tokbench (its C++ runtime and libraries alone), with the
# shared libraries the binary loads at start (libcurl and Open MPI are loaded only when used).
# Usage: bench/startup.sh [BINARY] [N]   (default build/tokbench, 300). Needs a build.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/tokbench}
N=${2:-300}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo 'int main() { return 0; }' > "$WORK/empty.cpp"
g++ -O2 "$WORK/empty.cpp" -o "$WORK/empty_like_tokbench" -Wl,--no-as-needed -lsimdjson -lspdlog -lfmt -lyaml-cpp \
  -lpcre2-8 -lutf8proc -lpng16 -lstdc++
python3 - "$N" /bin/true "$WORK/empty_like_tokbench" "$BIN --version" "$BIN man --list" <<'PY'
import subprocess, sys, time
n = int(sys.argv[1])
floor = None
for cmd in sys.argv[2:]:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    times.sort()
    ms = times[n // 2] * 1000
    floor = floor or ms
    label = cmd.split('/')[-1] if cmd.startswith('/tmp') else cmd
    print(f"{label:<40} median {ms:6.2f} ms  ({ms / floor:4.1f}x /bin/true)")
PY
echo "shared libraries loaded at start: $(ldd "$BIN" | grep -c '=>')  (ldd $BIN)"
echo "machine: $(nproc) CPUs, $(uname -r)"
