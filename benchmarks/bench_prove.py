#!/usr/bin/env python3.11
"""Proof time and solver effort of `pyverify prove` on the fixture corpus.

    /usr/bin/python3.11 benchmarks/bench_prove.py --pyverify build/tools/pyverify/pyverify \
        [--fixtures-dir build/bundles/fixtures] [--json OUT] [--prove-arg=--rlimit=N ...]

Generates the rewriter's fixture bundles into --fixtures-dir if it holds no
.pvb (`python3.11 -m pyverify_rewriter gen-fixtures`), then runs
`pyverify prove --format=json --jobs=1` ONCE on the directory and reads each
result's "seconds" and "rlimit_used" (the prover's own measurements: process
start and printing are not included). Per bundle, the proof time and the
rlimit are the sums over its results (frame and resume functions). Prints:

  * median, p90 and max of the per-bundle proof time and rlimit, overall and
    per variant (the directory name);
  * the bundle verdicts, and the unknown results by reason (a timeout or a
    resource limit shows up here);
  * the goal "median < 50 ms per bundle and no timeout", as met or not met.

The goal is reported, never asserted: the exit status is 0 whenever the
prover ran (1 on a setup error, 77 when the binary has no `prove` command).
"""
import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOAL_MEDIAN_S = 0.050
TIMEOUT_WORDS = ("timeout", "timed out", "time limit", "canceled",
                 "cancelled")
RLIMIT_WORDS = ("rlimit", "resource limit", "resource-limit")

sys.path.insert(0, os.path.join(ROOT, "tests", "prove"))
from summarize import bundle_verdict, group_results  # noqa: E402


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def stats(values):
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": median(values),
            "p90": percentile(values, 90), "max": max(values),
            "total": sum(values)}


def is_timeout(reason):
    r = (reason or "").lower()
    return any(w in r for w in TIMEOUT_WORDS)


def is_rlimit(reason):
    r = (reason or "").lower()
    return any(w in r for w in RLIMIT_WORDS)


def ensure_fixtures(fixtures_dir, python_dir):
    have = any(f.endswith(".pvb") for _, _, fs in os.walk(fixtures_dir)
               for f in fs) if os.path.isdir(fixtures_dir) else False
    if have:
        return False
    os.makedirs(fixtures_dir, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=python_dir)
    p = subprocess.run([sys.executable, "-m", "pyverify_rewriter",
                        "gen-fixtures", fixtures_dir], env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("gen-fixtures failed:\n" + p.stdout + p.stderr)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pyverify", default=os.path.join(
        ROOT, "build", "tools", "pyverify", "pyverify"))
    ap.add_argument("--fixtures-dir", default=os.path.join(
        ROOT, "build", "bundles", "fixtures"))
    ap.add_argument("--python-dir", default=os.path.join(ROOT, "python"))
    ap.add_argument("--prove-arg", action="append", default=[],
                    help="extra argument for pyverify prove (repeatable), "
                         "e.g. --prove-arg=--timeout=2000")
    ap.add_argument("--json", metavar="OUT", help="write the figures here")
    a = ap.parse_args(argv)

    p = subprocess.run([a.pyverify, "prove", "--help"], capture_output=True,
                       text=True)
    if p.returncode != 0 or "Unknown command" in p.stdout + p.stderr:
        print("bench_prove: %s has no `prove` command" % a.pyverify)
        return 77
    try:
        generated = ensure_fixtures(a.fixtures_dir, a.python_dir)
    except RuntimeError as e:
        print("bench_prove: %s" % e)
        return 1
    cmd = [a.pyverify, "prove", "--format=json", "--jobs=1", *a.prove_arg,
           a.fixtures_dir]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1, 3):
        print("bench_prove: pyverify prove exited %d\n%s"
              % (p.returncode, p.stderr[-2000:]))
        return 1
    try:
        data = json.loads(p.stdout)
    except ValueError:
        print("bench_prove: no JSON from pyverify prove\n" + p.stderr[-2000:])
        return 1

    bundles = group_results(data)
    if not bundles:
        print("bench_prove: pyverify prove returned no results")
        return 1
    secs, rl = [], []
    per_variant = collections.defaultdict(lambda: ([], []))
    verdicts = collections.Counter()
    unknown = collections.Counter()
    for f, rs in bundles.items():
        s = sum(float(r.get("seconds") or 0) for r in rs)
        q = sum(int(r.get("rlimit_used") or 0) for r in rs)
        secs.append(s)
        rl.append(q)
        v = os.path.basename(os.path.dirname(f))
        per_variant[v][0].append(s)
        per_variant[v][1].append(q)
        verdicts[bundle_verdict(rs)] += 1
        for r in rs:
            if r.get("verdict") == "unknown":
                unknown[r.get("reason") or "(none)"] += 1
    timeouts = sum(n for why, n in unknown.items() if is_timeout(why))
    t_stats, r_stats = stats(secs), stats(rl)
    met = t_stats["median"] < GOAL_MEDIAN_S and timeouts == 0

    print("pyverify prove --jobs=1 on %s: %d bundles, %d results, "
          "%.2f s wall (exit %d)%s" % (
              a.fixtures_dir, len(bundles), len(data["results"]), wall,
              p.returncode, " [fixtures generated]" if generated else ""))
    print("  %-38s %10s %10s %10s %12s %12s %12s" % (
        "per bundle", "median ms", "p90 ms", "max ms", "median rl",
        "p90 rl", "max rl"))

    def row(name, s, q):
        ts, rs = stats(s), stats(q)
        print("  %-38s %10.2f %10.2f %10.2f %12d %12d %12d" % (
            "%s (%d)" % (name, ts["n"]), ts["median"] * 1e3, ts["p90"] * 1e3,
            ts["max"] * 1e3, rs["median"], rs["p90"], rs["max"]))
    row("all", secs, rl)
    for v in sorted(per_variant):
        row(v, *per_variant[v])
    print("  verdicts (bundles): %s" % dict(verdicts))
    if unknown:
        print("  unknown results by reason:")
        for why, n in unknown.most_common():
            tag = ("  [timeout]" if is_timeout(why) else
                   "  [resource limit]" if is_rlimit(why) else "")
            print("    %5d  %s%s" % (n, why, tag))
    else:
        print("  unknown results: none")
    print("goal: median < %d ms per bundle and no timeout: %s (median %.2f "
          "ms, %d timeout%s)" % (GOAL_MEDIAN_S * 1e3,
                                 "MET" if met else "NOT MET",
                                 t_stats["median"] * 1e3, timeouts,
                                 "" if timeouts == 1 else "s"))
    if a.json:
        out = {"command": cmd, "wall_seconds": wall,
               "returncode": p.returncode, "bundles": len(bundles),
               "results": len(data["results"]),
               "seconds_per_bundle": t_stats, "rlimit_per_bundle": r_stats,
               "per_variant": {v: {"seconds": stats(s), "rlimit": stats(q)}
                               for v, (s, q) in sorted(per_variant.items())},
               "verdicts": dict(verdicts), "unknown_reasons": dict(unknown),
               "timeouts": timeouts,
               "goal": {"median_seconds_below": GOAL_MEDIAN_S,
                        "no_timeouts": True, "met": met},
               "machine": {"platform": platform.platform(),
                           "cpus": os.cpu_count()}}
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
        print("wrote %s" % a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
