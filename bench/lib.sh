# Shared by the bench scripts (sourced): the simulator in its own process, on a free port.
# start_simulator LOG [COMMAND PREFIX ...] -- [serve-mock ARGS ...]: starts `$BIN serve-mock
# --port 0 ARGS` under the prefix (e.g. taskset -c 0), logging to LOG; sets SIM (its pid) and
# URL (its chat completions endpoint) once it listens (at most 5 s).
start_simulator() {
  local log=$1 prefix=()
  shift
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do prefix+=("$1"); shift; done
  shift
  "${prefix[@]}" $BIN serve-mock --port 0 "$@" >"$log" 2>&1 &
  SIM=$!
  for _ in $(seq 50); do grep -q listening "$log" && break; sleep 0.1; done
  URL="$(grep -o 'http://[0-9.:]*' "$log")/v1/chat/completions"
}
