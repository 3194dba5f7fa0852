#!/usr/bin/env python3.11
"""One line per verdict from `pyverify prove --format=json` output.

    pyverify prove --format=json DIR > out.json; summarize.py out.json
    pyverify prove --format=json DIR | summarize.py

Prints, counting bundles (a bundle is proved if all its results are,
refuted if any is, else unknown):

    prove: N proved
    prove: N refuted
    prove: N unknown (reason: count, ...)

The reasons are those of the unknown results. Exit 0 whenever the input is
the prover's JSON (refutations are expected on buggy fixtures), 1 if it is
not.
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
    reasons = collections.Counter()
    for rs in group_results(data).values():
        counts[bundle_verdict(rs)] += 1
        for r in rs:
            if r.get("verdict") == "unknown":
                reasons[r.get("reason") or "no reason given"] += 1
    lines = ["prove: %d proved" % counts["proved"],
             "prove: %d refuted" % counts["refuted"]]
    u = "prove: %d unknown" % counts["unknown"]
    if reasons:
        u += " (%s)" % ", ".join("%s: %d" % (why, n)
                                 for why, n in reasons.most_common())
    lines.append(u)
    return lines


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
