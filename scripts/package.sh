#!/usr/bin/env bash
# Builds tokbench's Debian package for load-generator hosts (README, "Install on a load host"):
# a build of the binary alone in build-package/ (RelWithDebInfo: the debug info goes into the
# -dbgsym package, the packaged binary is stripped), its man pages and completions, then CPack.
# Writes build-package/tokbench_<version>_amd64.deb and tokbench-dbgsym_<version>_amd64.ddeb.
# Usage: bash scripts/package.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
dir=${1:-build-package}
if [[ ! -f web/node_modules/echarts/dist/echarts.min.js ]]; then
  npm ci --prefix web --no-audit --no-fund --loglevel=error >/dev/null
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target tokbench tokbench_docs
(cd "$dir" && cpack -G DEB >/dev/null)
ls -l "$dir"/tokbench_*.deb "$dir"/tokbench-dbgsym_*.ddeb
