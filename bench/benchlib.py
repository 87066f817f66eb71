"""Shared by the Python bench scripts: the built binary's path, a command run to completion
with its output, its peak RSS (from wait4, the whole life of the process) and its wall time, and
the simulator started in its own process."""
import os, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "tokbench")


def measured(argv):
    """(output, peak RSS in MB, wall s) of argv; exits naming the command when it fails."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed ({status}): {' '.join(argv)}\n{out[-2000:]}")
    return out, ru.ru_maxrss / 1024.0, time.monotonic() - t0


def start_simulator(log_path, serve_args, prefix=()):
    """`tokbench serve-mock --port 0 SERVE_ARGS` under PREFIX (e.g. taskset -c 0), logging to
    LOG_PATH: (the process, its chat completions URL) once it listens (at most 5 s)."""
    log = open(log_path, "w")
    sim = subprocess.Popen([*prefix, BIN, "serve-mock", "--port", "0", *serve_args],
                           stdout=log, stderr=subprocess.STDOUT)
    for _ in range(50):
        m = re.search(r"http://[0-9.:]+", open(log_path).read())
        if m:
            return sim, m.group(0) + "/v1/chat/completions"
        time.sleep(0.1)
    sim.kill()
    sys.exit("the simulator did not start: " + open(log_path).read())
