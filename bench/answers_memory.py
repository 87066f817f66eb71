#!/usr/bin/env python3
"""--check-answers keeps memory flat (docs/PERFORMANCE.md, "Answer checking at 100,000 requests").

Runs `tokbench run --dataset gsm8k:... --check-answers` against the simulator answering the same
GSM8K file (`serve-mock --answers`, a quarter wrong, TTFT and TPOT 0, its own process) at 25,000
and 100,000 requests (the 1,319 questions cycled), and both once more without --check-answers;
prints each client's peak RSS (from wait4: the whole run, outputs included), the
ratio RSS(100k)/RSS(25k), and the accuracy the run measured against the share the simulator gave.

Usage: bench/answers_memory.py [--big N] [--tokens T]   (defaults: 100,000 and 32)
       bench/answers_memory.py --long [--seconds S]     (default 40)
--long: checks far slower than the load (issue 41): 200 KB outputs (50,000 tokens, 256 a chunk, TTFT
and TPOT 0) scored by a qa answer_regex that backtracks ("(\\w+\\s?)+[0-9]" never matches on the simulator's words, so every
output spends its match limit or its budget), for S seconds at 64 streams, with and without
--check-answers: peak RSS, and how many outputs were read, hit the regex limit or were let go.
Needs: a build in build/ (scripts/build.sh). The GSM8K file: $TOKBENCH_GSM8K (the real test split,
as docs/PERFORMANCE.md's figures used), else a GSM8K-format file of 1,319 questions written here
(the shape tests/support/gsm8k_fixture.hpp writes).
"""
import argparse, json, os, re, subprocess, tempfile, urllib.request

from benchlib import BIN, ROOT, measured



def gsm8k_file(tmp):
    """$TOKBENCH_GSM8K, else 1,319 GSM8K-format lines written into tmp."""
    given = os.environ.get("TOKBENCH_GSM8K", "")
    if given and os.path.isfile(given):
        return given
    path = os.path.join(tmp, "gsm8k.jsonl")
    with open(path, "w") as out:
        for i in range(1319):
            eggs, ref = 16 + i % 9, 3 * i + 7
            out.write(json.dumps({
                "question": f"Problem {i}: Janet's ducks lay {eggs} eggs per day. She eats three for breakfast "
                            "every morning and sells the rest at the farmers' market. How much does she make "
                            "every day, in dollars?",
                "answer": f"Janet sells {eggs} - 3 = <<{eggs}-3={eggs - 3}>>{eggs - 3} duck eggs a day.\n"
                          f"She makes ${ref} every day at the farmer's market.\n#### {ref}"}) + "\n")
    return path


def long_outputs(seconds):
    """--long: the recorder's bounds against checks slower than the load."""
    tmp = tempfile.mkdtemp(prefix="tokbench_answers_long_")
    qa = os.path.join(tmp, "qa.jsonl")
    with open(qa, "w") as out:
        for i in range(64):
            out.write(json.dumps({"question": f"Write at length, part {i}.", "answer_regex": "(\\w+\\s?)+[0-9]"}) + "\n")
    sim = subprocess.Popen([BIN, "serve-mock", "--port", "0", "--ttft-ms", "0", "--tpot-ms", "0", "--threads", "1",
                            "--tokens-per-chunk", "256"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    root = re.search(r"http://[0-9.:]+", sim.stdout.readline()).group(0)
    print(f"machine: {os.cpu_count()} CPUs; 50,000-token outputs, 256 tokens a chunk, TTFT and TPOT 0; "
          f"64 streams for {seconds} s; answer_regex (\\w+\\s?)+[0-9] (backtracks, never matches)")
    print(f"{'check':>6} {'peak_rss_MB':>12} {'wall_s':>8} {'outputs':>8} {'output_MB':>10} {'read':>6} "
          f"{'regex_limit':>12} {'not_read':>9}")
    try:
        for check in (True, False):
            argv = [BIN, "run", "--url", root + "/v1/chat/completions", "--dataset", "qa:" + qa,
                    "--duration-s", str(seconds), "--concurrency", "64", "--max-tokens", "50000", "--ignore-eos",
                    "--quiet", "--server-metrics", "off", "--output-dir", os.path.join(tmp, str(check))]
            if check:
                argv.append("--check-answers")
            out, mb, wall = measured(argv)
            run_dir = re.search(r"results: (\S+)", out).group(1)
            result = json.load(open(os.path.join(run_dir, "result.json")))
            quality = result["quality"]
            answers = quality["answers"] or {}
            outputs = quality["integrity"]["outputs"]
            out_mb = sum(os.path.getsize(os.path.join(run_dir, f)) for f in os.listdir(run_dir)) / 1e6
            print(f"{str(check).lower():>6} {mb:>12.1f} {wall:>8.1f} {outputs:>8} {out_mb:>10.1f} "
                  f"{quality['integrity']['text_checked']:>6} {answers.get('unscored_regex_limit', '-'):>12} "
                  f"{quality['integrity']['not_read']:>9}", flush=True)
    finally:
        sim.terminate()
        subprocess.run(["rm", "-rf", tmp])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", type=int, default=100_000)
    ap.add_argument("--tokens", type=int, default=32)
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--seconds", type=int, default=40)
    a = ap.parse_args()
    if a.long:
        return long_outputs(a.seconds)
    tmp = tempfile.mkdtemp(prefix="tokbench_answers_")
    GSM8K = gsm8k_file(tmp)
    sim = subprocess.Popen([BIN, "serve-mock", "--port", "0", "--ttft-ms", "0", "--tpot-ms", "0", "--threads", "1",
                            "--answers", "gsm8k:" + GSM8K, "--wrong-rate", "0.25"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    root = re.search(r"http://[0-9.:]+", sim.stdout.readline()).group(0)
    print(f"machine: {os.cpu_count()} CPUs; simulator ttft 0, tpot 0, --wrong-rate 0.25; client concurrency 64, "
          f"{a.tokens} tokens an answer (--ignore-eos)")
    print(f"{'requests':>10} {'check':>6} {'peak_rss_MB':>12} {'wall_s':>8} {'accuracy':>9}")
    rss = {}
    try:
        for n, check in [(a.big // 4, True), (a.big, True), (a.big // 4, False), (a.big, False)]:
            argv = [BIN, "run", "--url", root + "/v1/chat/completions", "--dataset", "gsm8k:" + GSM8K,
                    "--num-prompts", str(n), "--concurrency", "64", "--max-tokens", str(a.tokens), "--ignore-eos",
                    "--quiet", "--server-metrics", "off", "--output-dir", os.path.join(tmp, f"{n}_{check}")]
            if check:
                argv.append("--check-answers")
            out, mb, wall = measured(argv)
            rss[(n, check)] = mb
            run_dir = re.search(r"results: (\S+)", out).group(1)
            answers = json.load(open(os.path.join(run_dir, "result.json")))["quality"]["answers"]
            acc = f"{answers['accuracy']:.4f}" if answers else "-"
            print(f"{n:>10} {str(check).lower():>6} {mb:>12.1f} {wall:>8.1f} {acc:>9}", flush=True)
        for check in (True, False):
            print(f"ratio RSS({a.big})/RSS({a.big // 4}) {'with' if check else 'without'} --check-answers: "
                  f"{rss[(a.big, check)] / rss[(a.big // 4, check)]:.2f}")
        metrics = urllib.request.urlopen(root + "/metrics").read().decode()
        counts = dict(re.findall(r'tokbench_mock_answers_total\{[^}]*verdict="(\w+)"\} (\d+)', metrics))
        right, wrong = int(counts["right"]), int(counts["wrong"])
        print(f"simulator over all four runs: {right} right, {wrong} wrong ({right / (right + wrong):.4f})")
    finally:
        sim.terminate()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
