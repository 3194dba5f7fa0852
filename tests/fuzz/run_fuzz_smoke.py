#!/usr/bin/env python3.11
"""Run every pyverify libFuzzer target for a short, bounded time.

    python3.11 tests/fuzz/run_fuzz_smoke.py --build build-fuzz --seconds 60

(`make fuzz-smoke FUZZ_SECONDS=N` builds the targets and runs this.) For each
target it makes the seed corpora if they are missing or stale
(make_seeds.py, into BUILD/fuzz/seeds), starts from a fresh working corpus in
BUILD/fuzz/work/TARGET/corpus (the seeds are read, never written), and runs
libFuzzer with -max_total_time, -rss_limit_mb, -timeout and
-print_final_stats=1. Before fuzzing, each target runs once over its saved
reproducers in tests/fuzz/regressions/TARGET/ (inputs that once crashed or
hung). It prints executions and exec/s per target and exits 1 if any target
crashed, leaked, ran out of memory or timed out, naming the reproducer
libFuzzer wrote (rerun it with `BUILD/tests/fuzz/TARGET FILE`; copy it into
tests/fuzz/regressions/TARGET/ once fixed).

With --keep-going (`make fuzz-long`), libFuzzer runs in fork mode and
carries on past crashes, leaks, timeouts and out-of-memory inputs: the
findings column counts the reproducers it wrote (one per distinct failure
it saw) into BUILD/fuzz/work/TARGET/artifacts/; without it, a target stops
at its first finding.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_seeds  # noqa: E402  (same directory)

TARGETS = make_seeds.TARGETS

FAILURE_PATTERNS = [
    ("timeout", re.compile(r"ERROR: libFuzzer: timeout")),
    ("out-of-memory", re.compile(r"ERROR: libFuzzer: (out-of-memory|"
                                 r"malloc limit)")),
    ("leak", re.compile(r"ERROR: LeakSanitizer")),
    ("crash", re.compile(r"ERROR: (AddressSanitizer|libFuzzer: deadly signal|"
                         r"UndefinedBehaviorSanitizer)|runtime error:|"
                         r"invariant failed")),
]


def ensure_seeds(build, python):
    seeds = os.path.join(build, "fuzz", "seeds")
    version_file = os.path.join(seeds, "VERSION")
    try:
        with open(version_file) as f:
            fresh = f.read().strip() == make_seeds.SEED_VERSION
    except OSError:
        fresh = False
    if fresh and all(os.path.isdir(os.path.join(seeds, t)) for t in TARGETS):
        return seeds
    print(f"== making seed corpora in {seeds}", flush=True)
    shutil.rmtree(seeds, ignore_errors=True)
    subprocess.run([python, os.path.join(HERE, "make_seeds.py"),
                    "--out", seeds], check=True)
    return seeds


def parse_log(text):
    stats = {}
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    if m:
        stats["runs"] = int(m.group(1))
    m = re.search(r"stat::average_exec_per_sec:\s*(\d+)", text)
    if m:
        stats["exec_per_sec"] = int(m.group(1))
    m = re.search(r"Done (\d+) runs in (\d+) second", text)
    if m:
        stats.setdefault("runs", int(m.group(1)))
        stats["seconds"] = int(m.group(2))
        if int(m.group(2)):
            stats.setdefault("exec_per_sec",
                             int(m.group(1)) // int(m.group(2)))
    m = re.search(r"stat::peak_rss_mb:\s*(\d+)", text)
    if m:
        stats["peak_rss_mb"] = int(m.group(1))
    cov = re.findall(r"^#\d+\s+\w+\s+cov: (\d+) ft: (\d+)", text, re.M)
    if cov:
        stats["cov"], stats["ft"] = int(cov[-1][0]), int(cov[-1][1])
    # Fork mode (--keep-going): the parent's progress lines, the last one
    # with the totals (not anchored: a job's output can precede it on the
    # same line).
    fork = re.findall(r"#(\d+): cov: (\d+) ft: (\d+) corp: \d+ exec/s (\d+) "
                      r"oom/timeout/crash: (\d+)/(\d+)/(\d+) time: (\d+)s",
                      text)
    if fork:
        runs, cov, ft, eps, _, _, _, secs = map(int, fork[-1])
        stats.setdefault("runs", runs)
        stats["cov"], stats["ft"] = cov, ft
        stats.setdefault("seconds", secs)
        stats.setdefault("exec_per_sec", runs // secs if secs else eps)
    repro = re.findall(r"Test unit written to (\S+)", text)
    if repro:
        stats["reproducer"] = repro[-1]
    # The first report wins: an out-of-memory that then hangs while being
    # reported is an out-of-memory, not a timeout.
    first = None
    for kind, pat in FAILURE_PATTERNS:
        m = pat.search(text)
        if m and (first is None or m.start() < first[0]):
            first = (m.start(), kind)
    if first:
        stats["failure"] = first[1]
    return stats


def fuzz_env():
    env = dict(os.environ)
    # A smaller quarantine than ASan's 256 MB: the listing passes allocate a
    # lot, and recycling fresh pages dominated fuzz_marshal's time. Freed
    # blocks still stay poisoned for the next 32 MB of allocations.
    env.setdefault("ASAN_OPTIONS",
                   "detect_leaks=1:abort_on_error=0:quarantine_size_mb=32")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return env


def target_binary(args, target):
    binary = os.path.join(args.build, "tests", "fuzz", target)
    if not os.access(binary, os.X_OK):
        sys.exit(f"run_fuzz_smoke.py: {binary} not built "
                 f"(make fuzz-build)")
    return os.path.abspath(binary)


def run_regressions(args, target):
    """Runs the target once on each saved reproducer; returns failures."""
    rdir = os.path.join(HERE, "regressions", target)
    files = sorted(os.path.join(rdir, f) for f in os.listdir(rdir)) \
        if os.path.isdir(rdir) else []
    failures = []
    for f in files:
        proc = subprocess.run(
            [target_binary(args, target), f"-timeout={args.timeout}",
             f"-rss_limit_mb={args.rss_limit_mb}", f],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=fuzz_env(), errors="replace")
        if proc.returncode != 0:
            failures.append(f)
            print(proc.stdout[-4000:], file=sys.stderr)
    print(f"== {target}: {len(files)} saved reproducers, "
          f"{len(failures)} failing", flush=True)
    return failures


def start_target(args, target, seeds):
    binary = target_binary(args, target)
    work = os.path.abspath(os.path.join(args.build, "fuzz", "work", target))
    shutil.rmtree(work, ignore_errors=True)
    corpus = os.path.join(work, "corpus")
    artifacts = os.path.join(work, "artifacts")
    os.makedirs(corpus)
    os.makedirs(artifacts)
    cmd = [binary,
           f"-max_total_time={args.seconds}",
           f"-rss_limit_mb={args.rss_limit_mb}",
           f"-timeout={args.timeout}",
           "-print_final_stats=1",
           f"-artifact_prefix={artifacts}/"]
    if args.keep_going:
        cmd += ["-fork=1", "-ignore_crashes=1", "-ignore_timeouts=1",
                "-ignore_ooms=1"]
    cmd += [corpus, os.path.abspath(os.path.join(seeds, target))]
    env = fuzz_env()
    log_path = os.path.join(work, "fuzz.log")
    log = open(log_path, "w")
    print(f"== {target}: {' '.join(cmd)}", flush=True)
    proc = subprocess.Popen(cmd, cwd=work, stdout=log,
                            stderr=subprocess.STDOUT, env=env)
    return {"target": target, "proc": proc, "log": log, "log_path": log_path,
            "start": time.monotonic(), "corpus": corpus,
            "artifacts": artifacts}


def finish_target(args, run):
    # libFuzzer stops itself after -max_total_time; loading the seeds and
    # minimising a crash add some time, so only a hang this long is killed.
    limit = args.seconds + args.timeout + 300
    left = max(1.0, limit - (time.monotonic() - run["start"]))
    try:
        rc = run["proc"].wait(timeout=left)
    except subprocess.TimeoutExpired:
        run["proc"].kill()
        rc = run["proc"].wait()
        run["killed"] = True
    run["log"].close()
    with open(run["log_path"], errors="replace") as f:
        text = f.read()
    stats = parse_log(text)
    stats["rc"] = rc
    stats["wall"] = time.monotonic() - run["start"]
    stats["new_units"] = len(os.listdir(run["corpus"]))
    stats["findings"] = sorted(
        os.path.join(run["artifacts"], f)
        for f in os.listdir(run["artifacts"])
        if f.split("-")[0] in ("crash", "leak", "timeout", "oom"))
    if stats["findings"] and "failure" not in stats:
        stats["failure"] = "findings"
    if run.get("killed"):
        stats["failure"] = "hung (killed by run_fuzz_smoke.py)"
    elif rc != 0 and "failure" not in stats:
        stats["failure"] = f"exit code {rc}"
    stats["log"] = run["log_path"]
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True,
                    help="the fuzz build tree (build-fuzz)")
    ap.add_argument("--seconds", type=int, default=60,
                    help="-max_total_time per target")
    ap.add_argument("--targets", nargs="*", default=list(TARGETS),
                    choices=TARGETS)
    ap.add_argument("--jobs", type=int, default=1,
                    help="targets run at once (each uses one core)")
    ap.add_argument("--rss-limit-mb", type=int, default=2048)
    ap.add_argument("--timeout", type=int, default=10,
                    help="libFuzzer per-input timeout, seconds")
    ap.add_argument("--keep-going", action="store_true",
                    help="fork mode: go on past findings and count them")
    ap.add_argument("--python", default=sys.executable,
                    help="CPython 3.11 for make_seeds.py")
    args = ap.parse_args()

    seeds = ensure_seeds(args.build, args.python)
    regressions = {t: run_regressions(args, t) for t in args.targets}
    results = {}
    pending = list(args.targets)
    running = []
    while pending or running:
        while pending and len(running) < max(1, args.jobs):
            running.append(start_target(args, pending.pop(0), seeds))
        run = running.pop(0)
        results[run["target"]] = finish_target(args, run)

    print()
    print(f"{'target':<22}{'runs':>11}{'exec/s':>9}{'cov':>7}{'ft':>8}"
          f"{'new':>6}{'findings':>9}  result")
    failed = []
    for t in args.targets:
        s = results[t]
        status = s.get("failure", "ok")
        if regressions[t]:
            status += f", {len(regressions[t])} saved reproducers fail"
        print(f"{t:<22}{s.get('runs', 0):>11}{s.get('exec_per_sec', 0):>9}"
              f"{s.get('cov', 0):>7}{s.get('ft', 0):>8}{s['new_units']:>6}"
              f"{len(s['findings']):>9}  {status}")
        if "failure" in s or regressions[t]:
            failed.append(t)
    for t in failed:
        s = results[t]
        print(f"\nFAILED {t}: {s.get('failure', 'saved reproducers')}",
              file=sys.stderr)
        for f in regressions[t]:
            print(f"  saved reproducer fails: {f}", file=sys.stderr)
        if "failure" not in s:
            continue
        for f in s["findings"]:
            print(f"  finding:    {f}", file=sys.stderr)
        if "reproducer" in s:
            print(f"  reproducer: {s['reproducer']}", file=sys.stderr)
            print(f"  rerun:      {os.path.join(args.build, 'tests', 'fuzz', t)}"
                  f" {s['reproducer']}", file=sys.stderr)
        print(f"  log:        {s['log']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
