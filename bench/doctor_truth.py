#!/usr/bin/env python3
"""Holds `tokbench doctor`'s streams estimate to measured runs (issue 45, item 4).

The simulator alone on core 0 (--trace: the truth of every request), the client on core 1. First
`tokbench doctor --url FAST` on core 1 (FAST: a second simulator on core 0 at TPOT 10 ms, the fast
server doctor's --help asks for) measures the client's cost per event and estimates the streams
one core drives at the traced simulator's token rate (1000 / --tpot-ms); then `tokbench run` on
core 1 at --factors times that estimate (ramped over --ramp-up-s, as a large closed loop should
be; the ramp is measured), each held to the truth: TTFT and TPOT error (mean client value over mean truth of the same
requests), the events/s the client read, its busiest worker's CPU share, the verdict. On two
cores the simulator's core may be the limit first (its TPOT then drifts above --tpot-ms: the
"server TPOT" column), which lowers the events/s the client is offered at the larger factors.

Each stream sends --rounds requests, so the full concurrency holds for most of the run.

Usage: bench/doctor_truth.py [--tpot-ms 50] [--factors 0.5,1,2] [--tokens 128] [--ramp-up-s 3]
       [--rounds 3]
Needs: a build in build/ (scripts/build.sh), python3, taskset, 2 or more CPUs.
"""
import argparse, glob, json, os, resource, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import BIN  # noqa: E402
from sim_truth import matched, mean, read_trace, traced_run  # noqa: E402


def start_simulator(out, tpot_ms, name, traced):
    """A simulator on core 0 (TTFT 50 ms, TPOT tpot_ms), with its --trace when traced."""
    trace = os.path.join(out, name + "_trace.jsonl")
    sim, url = benchlib.start_simulator(
        os.path.join(out, name + ".log"),
        ["--ttft-ms", "50", "--tpot-ms", str(tpot_ms), "--threads", "1"]
        + (["--trace", trace] if traced else []), prefix=("taskset", "-c", "0"))
    return sim, url, trace


def doctor(url, rate):
    p = subprocess.run(["taskset", "-c", "1", BIN, "doctor", "--url", url, "--json",
                        "--tokens-per-s", f"{rate:g}"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"tokbench doctor failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return json.loads(p.stdout)


def one_run(url, trace, out, streams, tokens, ramp_s, rounds):
    run, r = traced_run(["taskset", "-c", "1", BIN, "run", "--url", url, "--concurrency",
                         str(streams), "--num-prompts", str(rounds * streams), "--max-tokens",
                         str(tokens), "--ignore-eos", "--ramp-up-s", str(ramp_s),
                         "--ramp-up-measured"], trace, os.path.join(out, "runs"))
    pairs = list(matched(run, read_trace(trace)))
    end = json.load(open(glob.glob(os.path.join(run, "**", "end.json"), recursive=True)[0]))
    dur_s = r["common"]["benchmark_duration"] / 1000
    tt, tp = [t.ttft_ms for _, t in pairs], [t.tpot_ms for _, t in pairs]
    shutil.rmtree(run)
    return {
        "streams": streams,
        "ttft_err": 100 * (r["metrics"]["TTFT"]["mean"] - mean(tt)) / mean(tt),
        "tpot_err": 100 * (r["metrics"]["TPOT"]["mean"] - mean(tp)) / mean(tp),
        "server_tpot": mean(tp),
        "events_s": end["client_sse_events"] / dur_s,
        "cpu": end.get("client_cpu_share") or 0,
        "us_event": 1e6 * end["client_cpu_s"] / end["client_sse_events"],
        "status": r["verdict"]["status"],
        "reasons": r["verdict"].get("reasons", []) + r["verdict"].get("warnings", []),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpot-ms", type=float, default=50)
    ap.add_argument("--factors", default="0.5,1,2")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--ramp-up-s", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=3, help="requests per stream")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    out = tempfile.mkdtemp(prefix="tokbench_doctor_truth_")
    rate = 1000 / a.tpot_ms
    # The doctor's server is a fast one (TPOT 10 ms), as its --help asks: the client's cost per
    # event is measured at a rate worth measuring (512 streams: ~51,000 events/s offered).
    fast, fast_url, _ = start_simulator(out, 10, "fast", False)
    try:
        d = doctor(fast_url, rate)
    finally:
        fast.kill()
    sim, url, trace = start_simulator(out, a.tpot_ms, "sim", True)
    try:
        est = d["estimate"]["streams_at"][0]["streams"]
        print(f"machine: {os.cpu_count()} CPUs, {d['limits']['cpu_model']}; simulator core 0 "
              f"(ttft 50 ms, tpot {a.tpot_ms:g} ms), client core 1")
        print(f"doctor: {d['measured']['us_per_event']:.2f} µs/event at {d['measured']['streams']} "
              "streams, "
              f"{d['estimate']['events_per_s']:.0f} events/s within the bound on "
              f"{d['estimate']['cpus']:g} CPU -> {est} streams at {rate:g} tok/s")
        print("| × estimate | streams | verdict | TTFT error | TPOT error | server TPOT ms | "
              "client events/s | µs / event | busiest worker CPU |")
        print("|---|---|---|---|---|---|---|---|---|")
        for f in [float(x) for x in a.factors.split(",")]:
            n = max(1, round(est * f))
            x = one_run(url, trace, out, n, a.tokens, a.ramp_up_s, a.rounds)
            print(f"| {f:g} | {n} | {x['status']} | {x['ttft_err']:+.2f} % | {x['tpot_err']:+.3f} % "
                  f"| {x['server_tpot']:.1f} | {x['events_s']:.0f} | {x['us_event']:.2f} | {x['cpu']:.2f} |",
                  flush=True)
            for reason in x["reasons"]:
                print(f"|   | | {reason[:160]} |")
    finally:
        sim.kill()
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
