#!/usr/bin/env python3
"""Calibrates the verdict's client-saturation rule against the simulator's truth (issue 47, 4).

Runs tokbench against the simulator (its --trace holds, per request, when the request reached
the host and when the first token was written: TTFT truth) at several stream counts, in rounds
that interleave the levels, beside a CPU hog (busy-looping processes) that takes the cores the
client needs. Per run it prints the true TTFT error (mean client TTFT over mean truth TTFT of the
same requests), the client-side signals (its busiest worker's CPU share, its share not waiting
for the network, its busiest 100 ms, and ClientDelay: its own measured delay in TTFT; w>host: the
simulator's first-write stamp to the kernel's receive time of those bytes on the client's side,
as a share of TTFT: lateness inside the truth itself, or TCP merging segments; merged: the
requests whose first token was read together with the next, their ClientDelay a lower bound),
and what two rules say: the CPU rule that came before (INVALID when the busiest worker's CPU share or
busy share is over 0.9, or when a busy 100 ms (0.95) and the server's /metrics disagreeing put
the disagreement on the client) and the verdict's (with ClientDelay measured, INVALID when it is
over 2% of mean TTFT and 1 ms, busy or not; a saturated client within that is a warning). Then
per rule:
false-INVALID (INVALID while TTFT was within 2% of truth) and false-VALID (not INVALID while TTFT
was off by more).

Usage: bench/saturation_truth.py [--rounds 10] [--levels 512,1024,1400,2048,4096] [--hogs 1]
       [--tokens 256] [--tpot-ms 20]
Needs: a build in build/ (scripts/build.sh) and python3. Takes ~1.5 min a round at the defaults,
~2.2 min with --hogs 2 (docs/PERFORMANCE.md ran --rounds 10 --hogs 2).
"""
import argparse, glob, json, os, resource, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import BIN  # noqa: E402
from sim_truth import matched, mean, read_trace, traced_run  # noqa: E402

TOLERANCE = 0.02  # TTFT within 2% of truth: what the verdict promises


def start_simulator(out, tpot_ms):
    trace = os.path.join(out, "trace.jsonl")
    sim, url = benchlib.start_simulator(
        os.path.join(out, "sim.log"),
        ["--ttft-ms", "50", "--tpot-ms", str(tpot_ms), "--threads", "1", "--trace", trace])
    return sim, url, trace


def start_hogs(n):
    """n busy-looping processes: other work on the client's cores."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def one_run(url, trace, out, streams, tokens):
    run, r = traced_run([BIN, "run", "--url", url, "--concurrency", str(streams), "--num-prompts",
                         str(2 * streams), "--max-tokens", str(tokens), "--ignore-eos"], trace,
                        os.path.join(out, "runs"))
    origin = json.load(open(os.path.join(run, "manifest.json")))["origin_steady_ns"]
    client, truth, write_to_host, merged = [], [], [], 0
    for d, t in matched(run, read_trace(trace)):
        ns = d["timing_ns"]
        if ns.get("first_token") is None:
            continue
        client.append((ns["first_token"] - ns["sent"]) / 1e6)
        truth.append(t.ttft_ms)
        # The simulator's first-write stamp to the kernel's receive time the client saw: the
        # simulator's own lateness between stamping a write and making it (inside the "truth").
        if ns.get("first_token_host") is not None:
            write_to_host.append((ns["first_token_host"] + origin - t.first_write_ns) / 1e6)
        # The first token read together with the next: the kernel keeps the newest segment's
        # receive time for merged segments, so that request's ClientDelay is a lower bound.
        times = [x for x, k in zip(d["chunks"]["t_ns"], d["chunks"]["kinds"]) if k == "C"]
        merged += len(times) > 1 and times[1] == times[0]
    delay = r["extra_metrics"].get("ClientDelay", {})
    ttft = r["metrics"]["TTFT"]
    reasons = r["verdict"].get("reasons", [])
    warnings = r["verdict"].get("warnings", [])
    run_facts = json.load(open(glob.glob(os.path.join(run, "**", "end.json"), recursive=True)[0]))
    cpu, busy = run_facts.get("client_cpu_share") or 0, run_facts.get("client_busy_share") or 0
    peak = run_facts.get("client_peak_busy") or 0
    server = glob.glob(os.path.join(run, "**", "server.json"), recursive=True)
    checks = json.load(open(server[0])).get("cross_check", []) if server else []
    disagrees = any(not c.get("agree", True) for c in checks)
    saturation = ("busiest worker thread", "the client was saturated", "ClientDelay")
    shutil.rmtree(run)
    return {
        "streams": streams,
        "matched": len(client),
        "error": (mean(client) - mean(truth)) / mean(truth) if client else float("nan"),
        "merged": merged / len(client) if client else float("nan"),
        "write_to_host": mean(write_to_host) / mean(truth) if write_to_host else float("nan"),
        "cpu": cpu,
        "busy": busy,
        "peak": peak,
        "delay_share": delay["mean"] / ttft["mean"] if delay.get("n") and ttft.get("mean") else None,
        # The rule before ClientDelay: CPU or busy share over 0.9, or a busy 100 ms (0.95) with
        # the server's /metrics disagreeing, put on the client.
        "cpu_rule": cpu > 0.9 or busy > 0.9 or (peak >= 0.95 and disagrees),
        "verdict_rule": any(k in x for x in reasons for k in saturation),
        "warned": any(k in x for x in warnings for k in saturation),
        "status": r["verdict"]["status"],
        "other": [x for x in reasons if not any(k in x for k in saturation)],
    }


def rates(results, rule):
    good = [x for x in results if abs(x["error"]) <= TOLERANCE]
    bad = [x for x in results if abs(x["error"]) > TOLERANCE]
    false_invalid = sum(1 for x in good if x[rule])
    false_valid = sum(1 for x in bad if not x[rule])
    return f"false-INVALID {false_invalid}/{len(good)}, false-VALID {false_valid}/{len(bad)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--levels", default="512,1024,1400,2048,4096")
    ap.add_argument("--hogs", type=int, default=1)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--tpot-ms", type=int, default=20)
    a = ap.parse_args()
    levels = [int(x) for x in a.levels.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    out = tempfile.mkdtemp()
    sim, url, trace = start_simulator(out, a.tpot_ms)
    hogs = start_hogs(a.hogs)
    print(f"machine: {os.cpu_count()} CPUs; simulator: ttft 50 ms, tpot {a.tpot_ms} ms, 1 thread; "
          f"{a.hogs} CPU hog(s); 2 x streams requests of {a.tokens} tokens per run")
    print(f"{'round':<6}{'streams':<8}{'ttft_err%':<10}{'cpu':<6}{'busy':<6}{'peak':<6}"
          f"{'delay%':<8}{'w>host%':<8}{'merged%':<8}{'cpu_rule':<10}{'verdict':<10}status")
    results = []
    try:
        for rnd in range(a.rounds):
            for streams in levels:
                x = one_run(url, trace, out, streams, a.tokens)
                results.append(x)
                share = "n/a" if x["delay_share"] is None else f"{100 * x['delay_share']:.2f}"
                print(f"{rnd:<6}{streams:<8}{100 * x['error']:<+10.2f}{x['cpu']:<6.2f}{x['busy']:<6.2f}"
                      f"{x['peak']:<6.2f}{share:<8}{100 * x['write_to_host']:<8.2f}{100 * x['merged']:<8.1f}"
                      f"{'INVALID' if x['cpu_rule'] else '-':<10}"
                      f"{'INVALID' if x['verdict_rule'] else 'warn' if x['warned'] else '-':<10}"
                      f"{x['status']}", flush=True)
                for reason in x["other"]:
                    print(f"      other reason: {reason[:160]}")
    finally:
        for h in hogs:
            h.kill()
        sim.kill()
        shutil.rmtree(out, ignore_errors=True)
    print(f"TTFT within {100 * TOLERANCE:.0f}% of truth: "
          f"{sum(1 for x in results if abs(x['error']) <= TOLERANCE)} of {len(results)} runs")
    for streams in levels + [None]:
        sel = [x for x in results if streams is None or x["streams"] == streams]
        name = "all" if streams is None else f"{streams} streams"
        print(f"{name:<12} CPU rule: {rates(sel, 'cpu_rule')}; verdict: {rates(sel, 'verdict_rule')}")
    bound = [x for x in results if x["delay_share"] is not None]
    held = sum(1 for x in bound if x["delay_share"] + 0.002 >= x["error"])
    print(f"ClientDelay share >= the true error - 0.2 points in {held} of {len(bound)} runs")


if __name__ == "__main__":
    main()
