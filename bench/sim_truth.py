"""The simulator's own truth per request, from its --trace, and a run's records matched to it by
the server's completion id (bench/client_overhead.sh, bench/events_per_core.sh).

Truth: TPOT = (last - first content write) / (tokens - 1); TTFT = first content write - when the
request reached the host (the kernel's receive time; the simulator's own read of it, "arrival",
when the kernel gave none).
"""
import glob
import json
import os
import re
import subprocess
import sys


class Truth:
    def __init__(self, received_ns, first_write_ns, tpot_ms, arrival_ns):
        self.received_ns = received_ns
        self.first_write_ns = first_write_ns
        self.tpot_ms = tpot_ms
        self.arrival_ns = arrival_ns

    @property
    def ttft_ms(self):
        return (self.first_write_ns - self.received_ns) / 1e6


def read_trace(path):
    """id -> Truth, for every traced request with more than one content token."""
    sim = {}
    for line in open(path):
        t = json.loads(line)
        writes = [x for x, k in zip(t["t_ns"], t["kinds"]) if k == "C"]
        tokens = sum(n for n, kind in zip(t["tokens"], t["kinds"]) if kind == "C")
        if tokens > 1:
            sim[t["id"]] = Truth(t.get("received_ns", t["arrival_ns"]), writes[0],
                                 (writes[-1] - writes[0]) / 1e6 / (tokens - 1), t["arrival_ns"])
    return sim


def matched(run_dir, sim):
    """(details record, Truth) for each measured, successful request of the run the trace knows."""
    for path in glob.glob(f"{run_dir}/performances/*/*_details.jsonl"):
        for line in open(path):
            d = json.loads(line)
            if not d["warmup"] and d["success"] and d["request_id"] in sim:
                yield d, sim[d["request_id"]]


def mean(values):
    return sum(values) / len(values)


def traced_run(argv, trace, runs):
    """`tokbench run` as ARGV, its --output-dir RUNS and --quiet added, with the simulator's trace
    emptied first (the simulator appends): (the run folder, its result.json). An INVALID run
    (exit 4) is kept: its numbers are still held to the truth."""
    open(trace, "w").close()
    p = subprocess.run(argv + ["--output-dir", runs, "--quiet"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode not in (0, 4):
        sys.exit(f"tokbench run failed ({p.returncode}):\n{p.stdout[-2000:]}")
    run = re.search(r"results: (\S+)", p.stdout).group(1)
    return run, json.load(open(os.path.join(run, "result.json")))
