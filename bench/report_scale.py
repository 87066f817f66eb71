#!/usr/bin/env python3
"""Reports at scale (docs/PERFORMANCE.md, "Reports at a million requests").

Makes an N-request run folder (`tokbench run` against the simulator in its own process, TTFT and
TPOT 0, two tokens a request, concurrency 64), then measures what a person opens and waits for:
the run page's size, `tokbench report` over the folder (wall time, records per second, peak RSS)
and `tokbench compare` of the folder with itself (wall time, peak RSS: it ranks four metrics'
per-request values for Mann-Whitney).

Usage: bench/report_scale.py [--requests N] [--repeat K] [--keep DIR]   (defaults: 1,000,000 and 3)
Needs: a build in build/ (scripts/build.sh).
"""
import argparse, glob, os, re, shutil, subprocess, sys, tempfile, time

from benchlib import BIN, measured


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3, help="times report and compare are run (each time is printed)")
    ap.add_argument("--keep", help="make the folder here and keep it (for a profiler)")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="tokbench_scale_")
    os.makedirs(tmp, exist_ok=True)
    sim = subprocess.Popen([BIN, "serve-mock", "--port", "0", "--ttft-ms", "0", "--tpot-ms", "0", "--threads", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = re.search(r"http://[0-9.:]+", sim.stdout.readline()).group(0) + "/v1/chat/completions"
    try:
        out, _, wall = measured([BIN, "run", "--url", url, "--num-prompts", str(a.requests), "--concurrency", "64",
                                 "--max-tokens", "2", "--ignore-eos", "--quiet", "--server-metrics", "off",
                                 "--output-dir", tmp])
    finally:
        sim.terminate()
    run_dir = re.search(r"results: (\S+)", out).group(1)
    page = glob.glob(os.path.join(run_dir, "performances", "*", "*_plot.html"))[0]
    details = glob.glob(os.path.join(run_dir, "performances", "*", "*_details.jsonl"))[0]
    print(f"machine: {os.cpu_count()} CPUs; {a.requests:,} requests of 2 tokens (run: {wall:.1f} s); "
          f"details {os.path.getsize(details) / 1e6:.1f} MB")
    print(f"run page: {os.path.getsize(page) / 1e6:.2f} MB")
    try:
        for k in range(a.repeat):
            _, mb, wall = measured([BIN, "report", run_dir])
            print(f"report: {wall:.2f} s ({a.requests / wall:,.0f} records/s), peak RSS {mb:.1f} MB, "
                  f"page {os.path.getsize(page) / 1e6:.2f} MB", flush=True)
        for k in range(a.repeat):
            _, mb, wall = measured([BIN, "compare", run_dir, run_dir])
            print(f"compare (the folder with itself): {wall:.2f} s, peak RSS {mb:.1f} MB", flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
