"""Shared by the Python bench scripts: the built binary's path, and a command run to completion
with its output, its peak RSS (from wait4, the whole life of the process) and its wall time."""
import os, subprocess, sys, time

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
