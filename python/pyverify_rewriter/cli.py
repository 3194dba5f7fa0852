"""Command line: fixture generation.

  python3.11 -m pyverify_rewriter gen-fixtures OUTDIR [--cases FILE]
      every correct output for every case of tests/python/rewriter_cases.py at
      every eligible break point, plus every applicable buggy variant, as
      OUTDIR/<variant>/<case>@<offset>.pvb; OUTDIR/manifest.json lists them.
      --strip-locations: every code object of every bundle (original, frame,
      resume functions, nested ones) without a location table (no position
      for any instruction), as rewriters that do not compute positions emit
      them.

  python3.11 -m pyverify_rewriter gen-stdlib OUTDIR --pyc-dir build/corpus/stdlib
      one correct bundle per CALL inside a with body of every function of the
      compiled standard library (static: nothing is run), as
      OUTDIR/<module path>/<qualname>@<offset>.pvb; rejections are counted
      by reason. --all-calls: every call, in a with body or not (a sweep of
      the rewriter's break points for `pyverify check`); --limit N: stop
      after N bundles.
"""

import argparse
import collections
import importlib.util
import json
import marshal
import os
import re
import sys
import types

from . import rewriter
from .analysis import block_chain, handler_kind, index_of
from .asm import decode
from .bundle import check_bundle_interpreter, strip_locations, write_bundle
from .opcodes import CALL_OPS, OP
from .rewriter import (VARIANTS, RewriteError, VariantNotApplicable,
                       break_points, check_function, rewrite)

DEFAULT_CASES = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "python",
    "rewriter_cases.py"))


def _safe(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", s).strip("_") or "code"


def _load_cases(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("rewriter_cases", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["rewriter_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


def gen_fixtures(outdir, cases_path=DEFAULT_CASES, variants=VARIANTS,
                 out=sys.stdout, strip=False):
    cases = _load_cases(cases_path)
    counts = collections.Counter()
    skipped = collections.Counter()
    expects = collections.defaultdict(collections.Counter)
    manifest = []
    nbreaks = 0
    for name, (fn, _inputs) in cases.CASES.items():
        for bp in break_points(fn, cases.MODE_CLASS_NAMES):
            if not bp.eligible:
                skipped["rejected: " + bp.reason] += 1
                continue
            nbreaks += 1
            for variant in variants:
                rewriter.reset_counter()
                try:
                    r = rewrite(fn, bp.offset, modes=bp.modes, variant=variant)
                except VariantNotApplicable as e:
                    skipped["%s n/a: %s" % (variant, e.reason)] += 1
                    continue
                d = os.path.join(outdir, variant)
                os.makedirs(d, exist_ok=True)
                path = os.path.join(d, "%s@%d.pvb" % (name, bp.offset))
                write_bundle(path, strip_locations(r.to_bundle_dict())
                             if strip else r)
                counts[variant] += 1
                expects[variant][r.expect] += 1
                manifest.append({"file": os.path.relpath(path, outdir),
                                 "case": name, "break_offset": bp.offset,
                                 "resume_offset": r.resume_offset,
                                 "variant": variant, "expect": r.expect,
                                 "contexts": r.contexts,
                                 "notes": _jsonable(r.notes)})
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("cases: %d, eligible break points: %d" % (len(cases.CASES), nbreaks),
          file=out)
    for v in variants:
        print("  %-34s %4d  %s" % (v, counts[v], dict(expects[v])), file=out)
    print("total: %d bundles" % sum(counts.values()), file=out)
    for k, n in sorted(skipped.items()):
        print("  skipped %-50s %d" % (k, n), file=out)
    return counts


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (int, str, float, bool)) or x is None:
        return x
    return repr(x)


def _walk(code, prefix=""):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _walk(c)


def gen_stdlib(outdir, pyc_dir, out=sys.stdout, limit=None, all_calls=False):
    """Static bundles for every CALL inside a with body of the stdlib (with
    ``all_calls``: every call, in a with body or not -- the rewriter's
    break points at large, for a sweep with ``pyverify check``).

    Live locals bound on some paths to the break only are assumed bound
    (``assume_bound``): the shape Dynamo emits for a trace on which they
    are."""
    fn_key, calls_key = (("functions with a call", "calls") if all_calls else
                         ("functions with a call in a with body",
                          "calls in with bodies"))
    counts = collections.Counter()
    fn_reasons = collections.Counter()
    bp_reasons = collections.Counter()
    expects = collections.Counter()
    files = []
    for root, _dirs, names in os.walk(pyc_dir):
        for n in sorted(names):
            if n.endswith(".pyc"):
                files.append(os.path.join(root, n))
    files.sort()

    def break_sites():
        """(directory, code object, offset) of every site of every function
        the rewriter accepts, counting as it goes (lazily: the limit ends
        the walk)."""
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            try:
                top = marshal.loads(data[16:])
            except Exception:  # noqa: BLE001
                fn_reasons["unreadable .pyc"] += 1
                continue
            rel = os.path.splitext(os.path.relpath(path, pyc_dir))[0]
            for co in _walk(top):
                counts["code objects"] += 1
                sites = _all_calls(co) if all_calls else _calls_in_with(co)
                if not sites:
                    continue
                counts[fn_key] += 1
                counts[calls_key] += len(sites)
                try:
                    check_function(co)
                except RewriteError as e:
                    fn_reasons[e.reason] += 1
                    counts["calls in rejected functions"] += len(sites)
                    continue
                for off in sites:
                    yield os.path.join(outdir, rel), co, off

    for d, co, off in break_sites():
        rewriter.reset_counter()
        try:
            r = rewrite(co, off, assume_bound=True)
        except RewriteError as e:
            bp_reasons[e.reason] += 1
            continue
        os.makedirs(d, exist_ok=True)
        write_bundle(os.path.join(
            d, "%s@%d.pvb" % (_safe(co.co_qualname), off)), r)
        counts["bundles"] += 1
        if r.assumed_bound:
            counts["bundles assuming a maybe-bound local bound"] += 1
        expects[r.expect] += 1
        if limit and counts["bundles"] >= limit:
            break
    print("files: %d, code objects: %d" % (len(files), counts["code objects"]),
          file=out)
    for k in (fn_key, calls_key,
              "calls in rejected functions", "bundles",
              "bundles assuming a maybe-bound local bound"):
        print("  %-45s %d" % (k, counts[k]), file=out)
    print("expect: %s" % dict(expects), file=out)
    print("functions rejected (by reason):", file=out)
    for k, n in fn_reasons.most_common():
        print("  %-45s %d" % (k, n), file=out)
    print("break points rejected (by reason):", file=out)
    for k, n in bp_reasons.most_common():
        print("  %-45s %d" % (k, n), file=out)
    return counts, fn_reasons, bp_reasons, expects


def _all_calls(co):
    """Offsets of every call a break point may be at (CALL_OPS)."""
    return [ins.orig for ins in decode(co) if ins.op in CALL_OPS]


def _calls_in_with(co):
    """Offsets of the CALLs whose block stack has at least one with level."""
    instrs = decode(co)
    idx = index_of(instrs)
    out = []
    for k, ins in enumerate(instrs):
        if ins.op != OP["CALL"] or ins.entry is None:
            continue
        try:
            chain = block_chain(instrs, k, idx)
        except ValueError:
            continue
        if any(handler_kind(instrs, idx, e) == "with" for e in chain):
            out.append(ins.orig)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3.11 -m pyverify_rewriter")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen-fixtures", help="bundles for the hand-written cases")
    g.add_argument("outdir")
    g.add_argument("--cases", default=DEFAULT_CASES)
    g.add_argument("--variants", default=",".join(VARIANTS),
                   help="comma-separated (default: all)")
    g.add_argument("--strip-locations", action="store_true",
                   help="write every code object without a location table")
    s = sub.add_parser("gen-stdlib", help="bundles for the standard library")
    s.add_argument("outdir")
    s.add_argument("--pyc-dir", required=True)
    s.add_argument("--limit", type=int, default=None)
    s.add_argument("--all-calls", action="store_true",
                   help="every call, not only those inside a with body")
    a = p.parse_args(argv)
    try:
        check_bundle_interpreter()
    except ValueError as e:
        p.error(str(e))
    if a.cmd == "gen-fixtures":
        variants = tuple(v for v in a.variants.split(",") if v)
        for v in variants:
            if v not in VARIANTS:
                p.error("unknown variant %r" % v)
        gen_fixtures(a.outdir, a.cases, variants, strip=a.strip_locations)
    else:
        if not os.path.isdir(a.pyc_dir):
            p.error("--pyc-dir %s is not a directory" % a.pyc_dir)
        gen_stdlib(a.outdir, a.pyc_dir, limit=a.limit, all_calls=a.all_calls)
    return 0
