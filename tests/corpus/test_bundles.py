#!/usr/bin/env python3.11
"""pyverify check on emitted-code bundles against their "expect" key.

Runs `pyverify check --format=json` over every .pvb under DIR and compares
each bundle's diagnostics with the bundle's own expectation:
  "ok"          no error and no warning in any code object of the bundle;
  "<check-id>"  that id is reported (error or warning);
  "smt:<why>"   a bug class the dataflow passes cannot see (it needs the
                frame and resume function composed: `pyverify prove`);
                counted and listed, not judged.
Findings on a bundle's "original" (the compiler's own code object, which
the rewriter did not write) are not judged: they are the compiler's (3.15.0rc1
leaves NOT_TAKENs in with bodies uncovered: with-body-uncovered, a true
finding about that CPython, which the corpus oracles count). They are
counted per check id and printed.
Prints counts per variant (the file name's second part) and exits 1 on any
mismatch. With --generate fixtures / --generate stdlib the rewriter writes
the bundles into DIR first (committed generator, not committed blobs); ctest's
bundles-fixtures tests instead read the fixtures their version's
prove-fixtures test wrote.
"""
import argparse
import collections
import json
import marshal
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--python-dir", help="directory holding pyverify_rewriter")
    ap.add_argument("--generate", choices=["fixtures", "stdlib"])
    ap.add_argument("--pyc-dir", help="stdlib .pyc mirror for --generate=stdlib")
    ap.add_argument("--name", default="bundles")
    ap.add_argument("dir")
    a = ap.parse_args()
    if a.generate:
        # the package's folder is put on sys.path by the command itself, not
        # only by PYTHONPATH: the 3.14 oracle's runner passed no env= to a
        # child before 2cea9f9
        env = dict(os.environ, PYTHONPATH=a.python_dir or "")
        boot = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
                "from pyverify_rewriter.cli import main; sys.exit(main())")
        cmd = [sys.executable, "-c", boot, a.python_dir or "",
               "gen-" + a.generate, a.dir]
        if a.generate == "stdlib":
            cmd += ["--pyc-dir", a.pyc_dir]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            return 1
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(a.dir)
                   for f in fs if f.endswith(".pvb"))
    if not files:
        print(f"{a.name}: no bundles under {a.dir}")
        return 1
    found = collections.defaultdict(list)
    original = collections.Counter()
    for i in range(0, len(files), 300):
        part = files[i:i + 300]
        r = subprocess.run([a.pyverify, "check", "--format=json", "--jobs=0", *part],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(r.stderr)
            return 1
        for d in json.loads(r.stdout)["diagnostics"]:
            if d["severity"] not in ("error", "warning"):
                continue
            if d.get("target") == "original":
                original[d["check"]] += 1
            else:
                found[d["file"]].append(d)
    per = collections.defaultdict(collections.Counter)
    failures, smt = [], collections.Counter()
    for f in files:
        with open(f, "rb") as fh:
            expect = marshal.load(fh).get("expect", "ok")
        variant = os.path.basename(os.path.dirname(f))
        ids = sorted({d["check"] for d in found[f]})
        if expect.startswith("smt:"):
            per[variant]["needs-smt"] += 1
            smt[expect] += 1
            continue
        ok = (not ids) if expect == "ok" else (expect in ids)
        per[variant]["as-expected" if ok else "MISMATCH"] += 1
        if not ok and len(failures) < 30:
            failures.append(f"{f}: expect {expect}, pyverify reported {ids or 'nothing'}"
                            + (f" -- {found[f][0]['message']}" if found[f] else ""))
    print(f"{a.name}: {len(files)} bundles")
    for v in sorted(per):
        print(f"  {v:34s} " + ", ".join(f"{k} {n}" for k, n in sorted(per[v].items())))
    for k, n in sorted(smt.items()):
        print(f"  needs the SMT proof: {k}: {n}")
    for k, n in sorted(original.items()):
        print(f"  on the originals (the compiler's own code, not judged): {k}: {n}")
    for f in failures:
        print("  " + f)
    bad = sum(c["MISMATCH"] for c in per.values())
    print(f"{a.name}: {'PASS' if not bad else f'FAIL ({bad} mismatches)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
