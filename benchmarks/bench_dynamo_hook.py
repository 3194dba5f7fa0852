"""pyverify.dynamo's cost per hook call, as ratios measured in one run.

For every correct rewrite of pyverify_rewriter's cases at a break point
without a torch-function mode (the ones the hook pairs), it times:

  hook     Hook.check(code, out_code, globals): the frame verified with the
           original and the resume function as one bundle, its claims
           derived from the code (ResumePairing.h);
  bundle   pyverify.verify_bundle on the rewriter's own bundle (the claims
           given, nothing derived);
  frame    pyverify.verify(out_code): the frame alone.

and prints the means (microseconds per hook call) and the ratios
hook/bundle (what deriving the claims and finding the resume functions
cost) and hook/frame (what checking the bundle costs over the frame).

For the correct rewrites at a break under a torch-function mode (paired
with the claims ContinueExecutionCache.generate gives), it times

  claims   Hook.generated (the resume function checked against the claims
           with the original, no frame) plus Hook.check with the claims:
           what the hook does per break under a mode;
  mbundle  pyverify.verify_bundle on the rewriter's own bundle;

and the ratio claims/mbundle. Nothing is asserted: speed is reported,
never tested.

    PYTHONPATH=build/python python3.11 benchmarks/bench_dynamo_hook.py
"""

import argparse
import json
import os
import sys
import time
import types

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.append(os.path.join(ROOT, "python"))

import pyverify  # noqa: E402
import pyverify.dynamo as pd  # noqa: E402
import pyverify_rewriter  # noqa: E402
from pyverify_rewriter.cli import DEFAULT_CASES, _load_cases  # noqa: E402
from pyverify_rewriter.rewriter import reset_counter  # noqa: E402


def rewrites():
    cases = _load_cases(DEFAULT_CASES)
    out = []
    for fn, _ in cases.CASES.values():
        for bp in pyverify_rewriter.break_points(fn, cases.MODE_CLASS_NAMES):
            if bp.eligible and not bp.modes:
                reset_counter()
                r = pyverify_rewriter.rewrite(fn, bp.offset)
                g = dict(fn.__globals__)
                g.update(r.globals)
                out.append((r, g))
    return out


def mode_rewrites():
    cases = _load_cases(DEFAULT_CASES)
    out = []
    for fn, _ in cases.CASES.values():
        for bp in pyverify_rewriter.break_points(fn, cases.MODE_CLASS_NAMES):
            if bp.eligible and bp.modes:
                reset_counter()
                r = pyverify_rewriter.rewrite(fn, bp.offset, modes=bp.modes)
                g = dict(fn.__globals__)
                g.update(r.globals)
                out.append((r, g))
    return out


class _Tap:
    """What the generate wrapper would have recorded for each rewrite."""

    def __init__(self, rs):
        self.claims = {}
        for r, _ in rs:
            fns = [types.SimpleNamespace(stack_index=c["stack_index"])
                   for c in r.contexts]
            self.claims[id(r.resume)] = pd._Claim(
                r.original, r.resume_offset,
                [c["handler"] for c in r.contexts], fns,
                [c["kind"] for c in r.contexts])

    def lookup(self, code, original):
        c = self.claims.get(id(code))
        return c if c is not None and c.original is original else None


def best_of(repeat, fn):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    rs = rewrites()
    hook = pd.Hook("log", None, False, None, 1)
    events = [hook.check(r.original, r.frame, g) for r, g in rs]
    unpaired = sum(e.bundle is None for e in events)
    n = len(rs)

    def run_hook():
        for r, g in rs:
            hook.check(r.original, r.frame, g)

    def run_bundle():
        for r, _ in rs:
            pyverify.verify_bundle(r)

    def run_frame():
        for r, _ in rs:
            pyverify.verify(r.frame)

    ms = mode_rewrites()
    mhook = pd.Hook("log", None, False, None, 1)
    mhook.tap = _Tap(ms)
    assert all(mhook.check(r.original, r.frame, g).claims == "generate"
               for r, g in ms)

    def run_claims():
        for r, g in ms:
            mhook.generated(mhook.tap.claims[id(r.resume)], r.resume)
            mhook.check(r.original, r.frame, g)

    def run_mbundle():
        for r, _ in ms:
            pyverify.verify_bundle(r)

    us = {k: best_of(a.repeat, f) / n * 1e6 for k, f in
          (("hook", run_hook), ("bundle", run_bundle), ("frame", run_frame))}
    us.update({k: best_of(a.repeat, f) / len(ms) * 1e6 for k, f in
               (("claims", run_claims), ("mbundle", run_mbundle))})
    res = {"calls": n, "mode_calls": len(ms), "unpaired": unpaired,
           "us_per_call": us,
           "ratios": {"hook/bundle": us["hook"] / us["bundle"],
                      "hook/frame": us["hook"] / us["frame"],
                      "claims/mbundle": us["claims"] / us["mbundle"]}}
    print(f"bench_dynamo_hook: {n} hook calls (the rewriter's correct "
          f"rewrites without a mode), {unpaired} unpaired; best of "
          f"{a.repeat}; {len(ms)} under a mode, paired with generate's "
          f"claims")
    for k, v in us.items():
        print(f"  {k:8s} {v:8.1f} us per call")
    for k, v in res["ratios"].items():
        print(f"  {k:12s} {v:6.2f}x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
