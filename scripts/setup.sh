#!/usr/bin/env bash
# Installs every Debian package tokbench needs to build and run (npm fetches the report's chart
# library at build time); with --test, also what the test suite needs (Chromium for the report).
# Idempotent: when everything is present it prints nothing and touches nothing. Run as root or
# with sudo.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git ca-certificates
  libcurl4-openssl-dev   # client transport (multi interface)
  libboost-dev           # Asio + Beast for the simulator (header-only)
  libsimdjson-dev        # JSON parsing
  libcli11-dev           # command line
  libyaml-cpp-dev        # run --config run.yaml
  libfmt-dev libspdlog-dev
  libpcre2-dev           # tokenizer pre-tokenizer regexes (JIT, UTF, UCP)
  libutf8proc-dev        # tokenizer Unicode normalization
  libpng-dev             # --image: synthetic PNG images for multimodal requests
  libsqlite3-dev         # the results store (tokbench history, run --history)
  libopenmpi-dev openmpi-bin  # multi-host runs: mpirun -np N tokbench run ... (Open MPI, also under Slurm)
  libgtest-dev libgmock-dev
  dpkg-dev file          # scripts/package.sh: CPack's Debian package (dpkg-shlibdeps computes Depends)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# npm fetches the HTML report's chart library at build time (embedded; running needs no Node).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
# Test-only: Node.js also runs the tokenizer oracle and drives Chromium for the report's tests.
if [[ "${1:-}" == "--test" ]]; then
  # Chromium checks the HTML report; clang and its runtimes (libFuzzer) build the fuzz targets;
  # openssl's command line serves TLS on loopback for the TLS tests; zsh checks the completion script;
  # man-db renders the packaged man page (tests/package_check.sh); clang-format checks the code's
  # formatting (tests/style_check.cmake); prometheus scrapes --live in a test (tests/live_test.cpp);
  # munge, slurmctld, slurmd and slurm-client make the single-node Slurm that tests/slurm_test.cpp
  # starts on loopback (srun --mpi=pmix, salloc + mpirun, sbatch).
  for p in chromium clang libclang-rt-14-dev clang-format openssl zsh man-db prometheus \
           munge slurmctld slurmd slurm-client; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
