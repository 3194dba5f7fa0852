"""The buggy variants at run time without fork: rewriter_oracle.run_variant
forks a child per break point (a variant may corrupt memory), which the 3.14
oracle cannot do (Pyodide: no fork, no threads; os.fork fails with ENOSYS).

Here one worker process (``rewriter_serial.py --worker DIR``) runs the plan
DIR/plan.json (variant -> its break points: every point of
rewriter_oracle.BREAKS, or a sample), in order, each point in the worker
itself (rewriter_oracle._worker_point;
one JSON line per point in DIR/<variant>.jsonl, as run_variant's). Before a
point it names it in DIR/current. A crash of the interpreter (a fault is
SIGSEGV in the oracle too) ends the worker there: the parent records that
point as crashed and starts a new worker, which skips what is done. A start
of the 3.14 oracle costs ~3-6 s, so one worker runs all variants, and a
crash costs a start. A hung point is not cut short (there is no child to
kill): the worker's whole run has a deadline instead.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import rewriter_oracle as ro  # noqa: E402

# seconds one worker may run before it is taken for hung
WORKER_DEADLINE = 1800


def can_fork():
    """Whether this interpreter can fork (not CPython in WebAssembly)."""
    return sys.platform not in ("emscripten", "wasi") and \
        hasattr(os, "pidfd_open")


def sample_plan(variants, per_variant):
    """variant -> the first ``per_variant`` break points of BREAKS where the
    variant applies (rewrite() does not refuse it), spread over the cases:
    at most one point per case while there are cases left."""
    plan = {}
    for variant in variants:
        pick, more = [], []
        for name, off, modes in ro.BREAKS:
            if len(pick) == per_variant:
                break
            if any(p[0] == name for p in pick):
                if len(more) < per_variant:
                    more.append((name, off, modes))
                continue
            try:
                ro.rewrite(ro.rc.CASES[name][0], off, modes=modes,
                           variant=variant)
            except ro.VariantNotApplicable:
                continue
            pick.append((name, off, modes))
        for p in more:     # fewer cases than asked for: their other points
            if len(pick) < per_variant:
                try:
                    ro.rewrite(ro.rc.CASES[p[0]][0], p[1], modes=p[2],
                               variant=variant)
                    pick.append(p)
                except ro.VariantNotApplicable:
                    pass
        plan[variant] = [list(p[:2]) + [list(p[2])] for p in pick]
    return plan


def _done(path):
    got = set()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                d = json.loads(line)
                if d["status"] != "started":
                    got.add(tuple(d["point"][:2]))
    return got


def _worker_main(out_dir):
    current = os.path.join(out_dir, "current")
    with open(os.path.join(out_dir, "plan.json")) as f:
        plan = json.load(f)
    for variant, pts in plan.items():
        path = os.path.join(out_dir, "%s.jsonl" % variant)
        done = _done(path)
        with open(path, "a", buffering=1) as results:
            for name, off, modes in pts:
                modes = tuple(modes)
                if (name, off) in done:
                    continue
                with open(current, "w") as f:
                    json.dump([variant, name, off], f)
                results.write(json.dumps({"point": [name, off],
                                          "status": "started"}) + "\n")
                try:
                    ro._worker_point(variant, name, off, modes, results)
                except Exception:  # noqa: BLE001 - reported to the parent
                    import traceback
                    results.write(json.dumps({
                        "point": [name, off], "status": "error",
                        "traceback": traceback.format_exc()}) + "\n")
                results.flush()
    if os.path.exists(current):
        os.unlink(current)


def run_variants(plan, out_dir):
    """{variant: {(case, offset): result}} over the plan (variant -> break
    points (case, offset, modes)), as rewriter_oracle.run_variant gives for
    one variant over all of them."""
    out_dir = str(out_dir)
    with open(os.path.join(out_dir, "plan.json"), "w") as f:
        json.dump({v: [[n, o, list(m)] for n, o, m in pts]
                   for v, pts in plan.items()}, f)
    variants = list(plan)
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", out_dir]
    for _ in range(sum(map(len, plan.values())) + 1):
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=WORKER_DEADLINE)
        if p.returncode == 0:
            break
        cur = os.path.join(out_dir, "current")
        if not os.path.exists(cur):
            raise RuntimeError("the variant worker failed before a point: "
                               + p.stderr[-2000:])
        with open(cur) as f:
            variant, name, off = json.load(f)
        os.unlink(cur)
        with open(os.path.join(out_dir, "%s.jsonl" % variant), "a") as f:
            f.write(json.dumps({"point": [name, off], "status": "crashed",
                                "returncode": p.returncode,
                                "stderr": p.stderr[-300:]}) + "\n")
    res = {}
    for variant in variants:
        res[variant] = {}
        path = os.path.join(out_dir, "%s.jsonl" % variant)
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    d = json.loads(line)
                    if d["status"] != "started":
                        res[variant][tuple(d["point"])] = d
    return res


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--worker":
    _worker_main(sys.argv[2])
