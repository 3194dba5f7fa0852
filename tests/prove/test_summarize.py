"""summarize.py's lines (`make run` prints them): each verdict's reasons are
those of the unknown results in its own bundles."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import summarize  # noqa: E402  (same directory)


def result(file, verdict, reason=None):
    r = {"file": file, "verdict": verdict}
    if reason:
        r["reason"] = reason
    return r


def test_unknown_results_of_a_refuted_bundle_are_not_unknown_bundles():
    data = {"results": [
        result("/b/ok.pvb", "proved"), result("/b/ok.pvb", "proved"),
        result("/b/bug.pvb", "refuted"),
        result("/b/bug.pvb", "unknown", "couldn't prove: X"),
        result("/b/open.pvb", "proved"),
        result("/b/open.pvb", "unknown", "path limit"),
        result("/b/open2.pvb", "unknown"),
    ]}
    assert summarize(data) == [
        "prove: 1 proved",
        "prove: 1 refuted (1 of their results unknown: couldn't prove: X: 1)",
        "prove: 2 unknown (path limit: 1, no reason given: 1)",
    ]


def test_no_unknown_result_lists_no_reason():
    data = {"results": [result("/b/ok.pvb", "proved"),
                        result("/b/bug.pvb", "refuted")]}
    assert summarize(data) == ["prove: 1 proved", "prove: 1 refuted",
                               "prove: 0 unknown"]
