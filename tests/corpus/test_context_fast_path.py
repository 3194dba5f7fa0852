#!/usr/bin/env python3.11
"""The context-balance fast path changes nothing.

ContextBalanceOptions::SkipWithoutContexts skips the abstract interpretation
of code objects in which nothing can enter or exit a context. This runs

    pyverify check --format=json DIR...
    pyverify analyze --print=contexts --format=json FILE...

with and without the hidden --no-context-fast-path and requires identical
diagnostics and identical per-instruction active-context sets on every code
object of the given corpora (stdlib .pyc, mutants, bundles...).
"""
import argparse
import json
import os
import subprocess
import sys


def files_under(paths):
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            dirnames.sort()
            out += [os.path.join(dirpath, f) for f in sorted(filenames)
                    if f.endswith((".pyc", ".pvb", ".marshal"))]
    return out


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit("%s failed (%d): %s" % (" ".join(cmd[:3]), r.returncode,
                                         r.stderr[:2000]))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    files = files_under(a.paths)
    if not files:
        sys.exit("no input files")

    fast = json.loads(run([a.pyverify, "check", "--format=json", *a.paths]))
    full = json.loads(run([a.pyverify, "check", "--format=json",
                           "--no-context-fast-path", *a.paths]))
    for d in (fast, full):
        d["summary"].pop("seconds", None)
    if fast != full:
        sys.exit("check differs with the fast path: %d vs %d diagnostics"
                 % (len(fast["diagnostics"]), len(full["diagnostics"])))

    objects = 0
    pycs = [f for f in files if not f.endswith(".pvb")]
    for i in range(0, len(pycs), 50):
        chunk = pycs[i:i + 50]
        x = run([a.pyverify, "analyze", "--print=contexts", "--format=json",
                 *chunk])
        y = run([a.pyverify, "analyze", "--print=contexts", "--format=json",
                 "--no-context-fast-path", *chunk])
        if x != y:
            sys.exit("analyze --print=contexts differs in %s..%s"
                     % (chunk[0], chunk[-1]))
        objects += x.count('"qualname"')
    print("context fast path: %d files, %d code objects, %d diagnostics: "
          "identical with and without" % (len(files), fast["summary"]
                                          ["code_objects"],
                                          len(fast["diagnostics"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
