#!/usr/bin/env python3
"""Client memory is flat in run length (docs/PERFORMANCE.md, "Memory").

Runs `tokbench run` against the simulator (a separate process, TTFT and TPOT 0 so that the
run is as long in requests as possible) for several request counts, and prints the client's
peak RSS for each (from wait4), the ratio RSS(4N)/RSS(N), then `tokbench report` over the
largest run folder: its wall time and peak RSS.

Usage: bench/memory_flat.py [--big N] [--tokens-run N] [--tokens T] [--pair-only]
  (defaults: 1,000,000, 50,000 and 2; --pair-only: the 10,000 / 40,000 pair alone, e.g. with
  --tokens 256, the ratio issue 47 asks of the outputs pass)
Needs: a build in build/ (scripts/build.sh).
"""
import argparse, os, re, subprocess, sys, tempfile, time

from benchlib import BIN, measured


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", type=int, default=1_000_000)
    ap.add_argument("--tokens-run", type=int, default=50_000)
    ap.add_argument("--tokens", type=int, default=2, help="output tokens a request of the 10k and 40k runs")
    ap.add_argument("--pair-only", action="store_true", help="only the 10k and 40k runs")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tokbench_mem_")
    sim = subprocess.Popen([BIN, "serve-mock", "--port", "0", "--ttft-ms", "0", "--tpot-ms", "0", "--threads", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = re.search(r"http://[0-9.:]+", sim.stdout.readline()).group(0) + "/v1/chat/completions"
    print(f"machine: {os.cpu_count()} CPUs; simulator ttft 0, tpot 0; client concurrency 64")
    print(f"{'requests':>10} {'tokens':>7} {'peak_rss_MB':>12} {'wall_s':>8}")
    rss = {}
    big_dir = None
    try:
        points = [(10_000, a.tokens), (40_000, a.tokens)]
        if not a.pair_only:
            points += [(a.big, 2), (a.tokens_run, 256)]
        for n, tokens in points:
            out_dir = os.path.join(tmp, f"{n}_{tokens}")
            out, mb, wall = measured([BIN, "run", "--url", url, "--num-prompts", str(n), "--concurrency", "64",
                                      "--max-tokens", str(tokens), "--ignore-eos", "--quiet",
                                      "--server-metrics", "off", "--output-dir", out_dir])
            rss[(n, tokens)] = mb
            print(f"{n:>10} {tokens:>7} {mb:>12.1f} {wall:>8.1f}", flush=True)
            if n == a.big:
                big_dir = re.search(r"results: (\S+)", out).group(1)
        print(f"ratio RSS(40000)/RSS(10000): {rss[(40_000, a.tokens)] / rss[(10_000, a.tokens)]:.2f}")
        if big_dir:
            _, mb, wall = measured([BIN, "report", big_dir])
            print(f"report over {a.big} records: {wall:.1f} s, peak RSS {mb:.1f} MB")
    finally:
        sim.terminate()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
