#!/usr/bin/env python3.11
"""Write the correlated cases (correlated_cases.py) as prover inputs.

    python3.11 tests/prove/gen_correlated.py OUTDIR [--no-self-check]

For every case NAME and its flipped twin NAME__flipped:

  OUTDIR/correlated/NAME.pvb            bundle with only an original
  OUTDIR/correlated/NAME.marshal        marshal.dump of the code object
  OUTDIR/flipped/NAME__flipped.pvb      (expect "smt:refuted")
  OUTDIR/flipped/NAME__flipped.marshal
  OUTDIR/manifest.json                  [{"name", "kind", "pvb", "marshal",
                                          "expect", "what"}]

The bundles follow docs/bundle-format.md with no frame and no resume
function: {"format": "pyverify-bundle", "version": 1, "original": code,
"frame": None, "break_offset": 0, "resumes": [], "expect": ...}; the prover
reports one "original" target (exactly-once on the original itself).

Before writing, a runtime self-check runs every function on every
combination of flags / managers / raising work and asserts that each
unflipped case leaves every manager balanced (entered == exited, never
exited while not entered) and that each flipped case does not on some
input: the cases mean what they claim. It runs with any interpreter pyverify
has tables for (the bundles say which: python_version).
"""
import argparse
import inspect
import itertools
import json
import marshal
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True      # no __pycache__ in the source tree

import correlated_cases  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from pyverify_rewriter._tables import TRAITS  # noqa: E402

# The bundles hold the running interpreter's code objects and say which
# version that is (python_version): any version pyverify has tables for.
if tuple(sys.version_info[:2]) not in TRAITS:
    sys.exit("gen_correlated.py: pyverify has no tables for CPython %d.%d"
             % sys.version_info[:2])


class Boom(Exception):
    pass


class Manager:
    def __init__(self, name, log):
        self.name, self.log, self.depth = name, log, 0

    def __enter__(self):
        self.log.append(("enter", self.name))
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", self.name))
        if self.depth <= 0:
            self.log.append(("BAD", "exit without enter", self.name))
        self.depth -= 1
        return False


MANAGER_PARAMS = {"cm", "cm1", "cm2", "res"}
FLAG_PARAMS = {"flag", "a", "b", "outer", "inner", "verbose"}
WORK_PARAMS = {"work", "other", "log"}


def _inputs(fn, log):
    """Every combination of argument values for ``fn``'s parameters."""
    names = list(inspect.signature(fn).parameters)
    choices = []
    for n in names:
        if n in MANAGER_PARAMS:
            choices.append([("mgr", n), None])
        elif n in FLAG_PARAMS:
            choices.append([True, False])
        elif n in WORK_PARAMS:
            choices.append([("work", 0), ("work", 1), ("raise",)])
        else:
            raise ValueError("%s: unknown parameter %r" % (fn.__name__, n))
    for combo in itertools.product(*choices):
        mgrs = []
        args = []
        for n, c in zip(names, combo):
            if isinstance(c, tuple) and c[0] == "mgr":
                m = Manager(c[1], log)
                mgrs.append(m)
                args.append(m)
            elif isinstance(c, tuple) and c[0] == "work":
                args.append(lambda v=c[1], n=n: (log.append(("call", n)), v)[1])
            elif isinstance(c, tuple) and c[0] == "raise":
                def boom(n=n):
                    log.append(("raise", n))
                    raise Boom(n)
                args.append(boom)
            else:
                args.append(c)
        yield combo, args, mgrs


def balanced_everywhere(fn):
    """(True, None) if every manager ends balanced on every input, else
    (False, the first unbalanced input and its log)."""
    log = []
    for combo, args, mgrs in _inputs(fn, log):
        log.clear()
        try:
            fn(*args)
        except (Boom, AttributeError, TypeError):
            # AttributeError / TypeError: a None manager used under a flag
            # that does not test it (an input the case does not claim to
            # handle; whatever was entered before is still checked below)
            pass
        if any(m.depth != 0 for m in mgrs) or any(e[0] == "BAD" for e in log):
            return False, {"input": repr(combo), "log": list(log),
                           "depths": {m.name: m.depth for m in mgrs}}
    return True, None


def self_check():
    problems = []
    for name, (good, flipped, _what) in correlated_cases.CASES.items():
        ok, why = balanced_everywhere(good)
        if not ok:
            problems.append("%s is not balanced at run time: %s" % (name, why))
        ok, _ = balanced_everywhere(flipped)
        if ok:
            problems.append("%s__flipped is balanced on every input" % name)
    return problems


def bundle_dict(code, expect):
    return {"format": "pyverify-bundle", "version": 1, "original": code,
            "frame": None, "break_offset": 0, "resumes": [], "expect": expect,
            "python_version": "%d.%d" % sys.version_info[:2]}


def generate(outdir, out=sys.stdout):
    manifest = []
    for name, (good, flipped, what) in correlated_cases.CASES.items():
        for kind, fn, expect in (("correlated", good, "ok"),
                                 ("flipped", flipped, "smt:refuted")):
            d = os.path.join(outdir, kind)
            os.makedirs(d, exist_ok=True)
            stem = fn.__name__
            pvb = os.path.join(d, stem + ".pvb")
            mar = os.path.join(d, stem + ".marshal")
            with open(pvb, "wb") as f:
                marshal.dump(bundle_dict(fn.__code__, expect), f)
            with open(mar, "wb") as f:
                marshal.dump(fn.__code__, f)
            manifest.append({"name": stem, "case": name, "kind": kind,
                             "pvb": os.path.relpath(pvb, outdir),
                             "marshal": os.path.relpath(mar, outdir),
                             "expect": expect, "what": what})
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("correlated cases: %d, written %d bundles + %d marshal files to %s"
          % (len(correlated_cases.CASES), len(manifest), len(manifest), outdir),
          file=out)
    return manifest


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--no-self-check", action="store_true",
                    help="skip the runtime check of the cases")
    a = ap.parse_args(argv)
    if not a.no_self_check:
        problems = self_check()
        if problems:
            for p in problems:
                print("self-check: " + p, file=sys.stderr)
            return 1
    os.makedirs(a.outdir, exist_ok=True)
    generate(a.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
