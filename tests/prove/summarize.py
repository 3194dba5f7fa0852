#!/usr/bin/env python3.11
"""One line per verdict from `pyverify prove --format=json` output.

    pyverify prove --format=json DIR > out.json; summarize.py out.json
    pyverify prove --format=json DIR | summarize.py

Prints, counting bundles (a bundle is proved if all its results are,
refuted if any is, else unknown):

    prove: N proved
    prove: N refuted (K of their results unknown: reason: count, ...)
    prove: N unknown (reason: count, ...)

Each line's reasons are those of the unknown results in its bundles: a
refuted bundle may hold unknown results too (another resume function's),
which are not unknown bundles. Exit 0 whenever the input is the prover's
JSON (refutations are expected on buggy fixtures), 1 if it is not.
"""
import collections
import json
import os
import sys


def group_results(data):
    """The results of `pyverify prove --format=json` by bundle file (real
    path), in output order."""
    by = collections.OrderedDict()
    for r in data.get("results", []):
        by.setdefault(os.path.realpath(r["file"]), []).append(r)
    return by


def bundle_verdict(results):
    """proved if all results are, refuted if any is, else unknown (also
    with no result at all)."""
    vs = [r.get("verdict") for r in results]
    if "refuted" in vs:
        return "refuted"
    if vs and all(v == "proved" for v in vs):
        return "proved"
    return "unknown"


def summarize(data):
    counts = collections.Counter()
    reasons = {"refuted": collections.Counter(),
               "unknown": collections.Counter()}
    for rs in group_results(data).values():
        verdict = bundle_verdict(rs)
        counts[verdict] += 1
        for r in rs:
            if r.get("verdict") == "unknown":
                reasons[verdict][r.get("reason") or "no reason given"] += 1

    def listed(c):
        return ", ".join("%s: %d" % (why, n) for why, n in c.most_common())

    refuted = "prove: %d refuted" % counts["refuted"]
    if reasons["refuted"]:
        refuted += " (%d of their results unknown: %s)" % (
            sum(reasons["refuted"].values()), listed(reasons["refuted"]))
    unknown = "prove: %d unknown" % counts["unknown"]
    if reasons["unknown"]:
        unknown += " (%s)" % listed(reasons["unknown"])
    return ["prove: %d proved" % counts["proved"], refuted, unknown]


def main(argv):
    if len(argv) > 1 and argv[1] not in ("-", ""):
        with open(argv[1]) as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    try:
        data = json.loads(text)
    except ValueError:
        print("prove: no JSON from pyverify prove (%d bytes of output)"
              % len(text))
        return 1
    for line in summarize(data):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
