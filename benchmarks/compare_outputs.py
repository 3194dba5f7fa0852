#!/usr/bin/env python3.11
"""Byte-identical outputs of two pyverify builds over the same inputs.

    python3.11 benchmarks/compare_outputs.py --base OLD/pyverify \
        --new build/tools/pyverify/pyverify [--build build] [--quick]

A performance change must not change a single byte of what pyverify prints.
This runs both binaries, one after the other, over the inputs the build
tree holds and compares stdout, stderr and the exit status byte for byte
(except the JSON summary's "seconds", the run's wall time):

  check --format=json, text and sarif     each version's stdlib corpus
                                          (build/corpus/stdlib, -3.12, ...)
  dis --format=json --fields, analyze     the same, but with --quick
  --print=block-stack --format=json
  cfg and cfg --dot                       the 3.11 stdlib corpus
  check --format=json, dis --format=json  the mutation corpora
                                          (build/mutation*/mutants)
  check, prove, dis and analyze           the fixture bundles
  --print=contexts (--format=json)        (build/tests/prove-fixtures*/
                                          fixtures, build/bundles/fixtures*)

Inputs that are missing are listed as skipped (the corpora are made by
ctests). Every input set is split into chunks of a few hundred files, run
with --jobs=0 (the output order is the input order whatever the jobs).
Prints one line per input set and exits 1 on the first difference, with the
command and the first differing line of each side.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

CHUNK = 400


def files_under(root, patterns):
    out = []
    for pat in patterns:
        out += glob.glob(os.path.join(root, "**", pat), recursive=True)
    return sorted(out)


def input_sets(build, quick):
    """(name, argv prefix, files, python-version or None) of every set."""
    sets = []
    for d, ver in [("stdlib", None), ("stdlib-3.12", None),
                   ("stdlib-3.13", None), ("stdlib-3.14", None),
                   ("stdlib-3.15", None)]:
        root = os.path.join(build, "corpus", d)
        files = files_under(root, ["*.pyc"])
        for fmt in (["json"] if quick else ["json", "text", "sarif"]):
            sets.append((f"{d} check --format={fmt}",
                         ["check", f"--format={fmt}"], files))
        if not quick:
            for argv in (["dis", "--format=json", "--fields"],
                         ["analyze", "--print=block-stack", "--format=json"]):
                sets.append((f"{d} {' '.join(argv)}", argv, files))
            if d == "stdlib":
                for argv in (["cfg"], ["cfg", "--dot"]):
                    sets.append((f"{d} {' '.join(argv)}", argv, files))
    for d in sorted(glob.glob(os.path.join(build, "mutation*"))):
        mut = os.path.join(d, "mutants")
        if not os.path.isdir(mut):
            mut = d
        files = files_under(mut, ["*.marshal"])
        base = os.path.basename(d)
        ver = next((p for p in base.split("-") if p.startswith("3.")),
                   "3.11")
        for cmd in ("check", "dis"):
            sets.append((f"{base} {cmd} --format=json",
                         [cmd, "--format=json", f"--python-version={ver}"],
                         files))
    # The fixtures each version's prove-fixtures test writes (ctest reads
    # them there), and `make run`'s.
    fixture_dirs = [(os.path.basename(os.path.dirname(d)), d) for d in
                    glob.glob(os.path.join(build, "tests", "prove-fixtures*",
                                           "fixtures"))]
    fixture_dirs += [(os.path.basename(d), d) for d in
                     glob.glob(os.path.join(build, "bundles", "fixtures*"))]
    for base, d in sorted(fixture_dirs):
        files = files_under(d, ["*.pvb"])
        sets.append((f"{base} check --format=json",
                     ["check", "--format=json"], files))
        sets.append((f"{base} prove --format=json",
                     ["prove", "--format=json"], files))
        sets.append((f"{base} dis --format=json",
                     ["dis", "--format=json"], files))
        sets.append((f"{base} analyze --print=contexts --format=json",
                     ["analyze", "--print=contexts", "--format=json"], files))
    return sets


# The one field that is not a function of the input: the check's own wall
# time in the JSON summary.
SECONDS = re.compile(rb'("seconds": )[0-9.eE+-]+')


def run(binary, argv, files):
    jobs = ["--jobs=0"] if argv[0] in ("check", "prove") else []
    r = subprocess.run([binary, *argv, *jobs, *files], capture_output=True)
    return r.returncode, SECONDS.sub(rb"\1T", r.stdout), r.stderr


def first_diff(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return i + 1, x[:300], y[:300]
    n = min(len(la), len(lb))
    return n + 1, (la[n][:300] if n < len(la) else b"<end>"), \
        (lb[n][:300] if n < len(lb) else b"<end>")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true",
                    help="JSON only on the stdlib corpora")
    ap.add_argument("--only", default="",
                    help="run the sets whose name contains this")
    ap.add_argument("--keep-going", action="store_true",
                    help="after a set differs, compare the others too")
    a = ap.parse_args()
    total_bytes, differed = 0, []
    for name, argv, files in input_sets(a.build, a.quick):
        if a.only and a.only not in name:
            continue
        if not files:
            print(f"skipped  {name}: no inputs")
            continue
        t0 = time.time()
        nbytes = 0
        for i in range(0, len(files), CHUNK):
            part = files[i:i + CHUNK]
            old = run(a.base, argv, part)
            new = run(a.new, argv, part)
            if old != new:
                print(f"DIFFERS  {name} (files {i}..{i + len(part) - 1})")
                print(f"  status {old[0]} vs {new[0]}")
                for label, x, y in (("stdout", old[1], new[1]),
                                    ("stderr", old[2], new[2])):
                    if x != y:
                        line, lx, ly = first_diff(x, y)
                        print(f"  {label} line {line}:\n    base: {lx!r}\n"
                              f"    new:  {ly!r}")
                if not a.keep_going:
                    return 1
                differed.append(name)
                break
            nbytes += len(old[1]) + len(old[2])
        if differed and differed[-1] == name:
            continue
        total_bytes += nbytes
        print(f"same     {name}: {len(files)} files, {nbytes:,} bytes, "
              f"{time.time() - t0:.1f} s")
    if differed:
        print(f"differ: {', '.join(differed)}; the others identical "
              f"({total_bytes:,} bytes of output)")
        return 1
    print(f"identical: {total_bytes:,} bytes of output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
