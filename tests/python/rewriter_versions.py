"""The rewriter's oracle under the running interpreter (3.11-3.13), without pytest.

    python3.12 tests/python/rewriter_versions.py --pyverify build/tools/pyverify/pyverify

For every case of rewriter_cases.py and every eligible break point:

(a) the runtime oracle: the eager and the rewritten run (frame, resume function and
    graph helper in this interpreter's bytecode) give the same outcome and the same
    normalised event log, for every input and every fault point k (the k-th ``op`` call
    raises); and every buggy variant that the 3.11 test runs is run the same way, in
    forked children (rewriter_oracle.run_variant), and must be seen or be one of the
    documented runtime-invisible classes;
(b) ``pyverify check --python-version=3.X`` of the correct frame, resume function and
    graph helper reports no error or warning (the graph helper's capture
    sequence excepted: see by_design below);
(c) for each variant whose expectation is a single-code-object check id
    (stacksize-too-small, exception-table-depth-exceeds-stacksize,
    context-not-exited, with-handler-mismatch), pyverify reports that id; the
    variants expected "ok" or "smt:..." must have no finding (the "smt:" bugs
    themselves are prover-only, and the prover is 3.11-only: out of scope);
(d) the disassembler/assembler on this interpreter's own stdlib (a sample of its
    top-level modules, compiled here): co_code, co_exceptiontable and co_positions()
    round-trip byte for byte (3.13: code objects without a superinstruction -- the
    decoder splits those), and the stack-depth pass equals co_stacksize.

The logic is rewriter_oracle.py's, shared with test_rewriter.py.  Prints the counts;
exits non-zero on any failure.
"""

import argparse
import collections
import glob
import json
import os
import sys
import sysconfig
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import rewriter_oracle as ro  # noqa: E402
import rewriter_cases as rc  # noqa: E402
import rewriter_serial  # noqa: E402
from pyverify_rewriter import (VARIANTS, VariantNotApplicable,  # noqa: E402
                               analysis, asm, break_points, rewrite)
from pyverify_rewriter.opcodes import SUPERINSTRUCTIONS, VERSION  # noqa: E402

def count_break_points():
    calls = eligible = 0
    rejected = collections.Counter()
    for name, (fn, _) in rc.CASES.items():
        for bp in break_points(fn, rc.MODE_CLASS_NAMES):
            calls += 1
            if bp.eligible:
                eligible += 1
            else:
                rejected[bp.reason] += 1
    return calls, eligible, rejected


def runtime_oracle(failures):
    runs = raising = 0
    for name, off, modes in ro.BREAKS:
        fn, inputs = rc.CASES[name]
        r = rewrite(fn, off, modes=modes)
        g = r.make_function()
        n = 0
        for args, k, (e_log, e_out), (r_log, r_out), _ in ro.oracle_runs(
                name, fn, inputs, g, r.frame):
            n += 1
            raising += e_out[0] == "raise"
            if r_out != e_out or not ro.logs_match(e_log, r_log, e_out):
                failures.append("oracle %s@%d args=%r k=%r: eager %r %r, rewritten %r %r"
                                % (name, off, args, k, e_out, ro.normalize(e_log),
                                   r_out, ro.normalize(r_log)))
                break
        if not n:
            failures.append("oracle %s@%d: no run" % (name, off))
        runs += n
    return runs, raising


def print_variant_row(variant, row, seconds):
    n, seen, crashed, hung = row
    note = "" if seen else " (%s)" % ro.RUNTIME_INVISIBLE.get(variant, "-")[:60]
    print("    variant %-32s applicable %3d, seen at run time %3d (crashes %d, hung %d)"
          "%s  %.1f s" % (variant, n, seen, crashed, hung, note, seconds), flush=True)


def runtime_variants(failures, out_dir, report=None, sample=0):
    """Run each buggy variant at every break point (forked workers), or,
    where there is no fork (the 3.14 oracle) or with a ``sample`` (that many
    points per variant, rewriter_serial.sample_plan), in one serial worker
    (rewriter_serial.py).

    ``report(variant, row, seconds)`` is called as each variant finishes, so
    a slow machine's log shows where the time went (serial: the total time
    is reported with the last variant)."""
    rows = {}
    run = [v for v in VARIANTS if v not in ro.NOT_RUN]
    serial = None
    t0 = time.time()
    plan = {v: ro.BREAKS for v in run}
    if sample:
        plan = rewriter_serial.sample_plan(run, sample)
    if sample or not rewriter_serial.can_fork():
        serial = rewriter_serial.run_variants(plan, out_dir)
    for variant in run:
        npoints = len(plan[variant])
        if serial is None:
            t0 = time.time()
        res = serial[variant] if serial is not None else \
            ro.run_variant(variant, out_dir)
        errors = {p: d.get("traceback", "")[-500:] for p, d in res.items()
                  if d["status"] == "error"}
        for p, tb in errors.items():
            failures.append("variant %s %s@%d: worker error %s" % (variant, p[0], p[1], tb))
        if len(res) != npoints:
            failures.append("variant %s: %d of %d break points reported"
                            % (variant, len(res), npoints))
        applicable = {p: d for p, d in res.items() if d["status"] != "n/a"}
        verdict = {p: ro.classify(variant, d) for p, d in applicable.items()}
        seen = [p for p, v in verdict.items() if v == "seen"]
        for p, v in verdict.items():
            if v.startswith("NOT DETECTED"):
                failures.append("variant %s %s@%d: not detected at run time"
                                % (variant, p[0], p[1]))
        if variant in ro.RUNTIME_EQUIVALENT and seen:
            failures.append("%s seen at run time (claimed equivalent to eager): "
                            "%r" % (variant, seen[:5]))
        rows[variant] = (len(applicable), len(seen),
                         sum(d["status"] == "crashed" for d in applicable.values()),
                         sum("hung" in d for d in applicable.values()))
        if report:
            report(variant, rows[variant], time.time() - t0)
    return rows


def static_checks(failures, pyverify, version, keep_dir=None):
    pairs = []
    capture = {}
    for name, off, modes in ro.BREAKS:
        for v in VARIANTS:
            try:
                r = rewrite(rc.CASES[name][0], off, modes=modes, variant=v)
            except VariantNotApplicable:
                continue
            key = "%s/%s@%d" % (v, name, off)
            objs = (r.frame, r.resume, r.helper) if v == "correct" else (r.frame, r.resume)
            pairs.append((key, r.expect) + objs)
            capture[key] = r.helper_capture
            if keep_dir:
                import marshal
                d = os.path.join(keep_dir, v)
                os.makedirs(d, exist_ok=True)
                for tag, co in zip(("frame", "resume", "graph"), objs):
                    with open(os.path.join(d, "%s@%d.%s.marshal" % (name, off, tag)),
                              "wb") as f:
                        marshal.dump(co, f)
    def by_design(d, tag, key):
        # The graph helper stands in for Dynamo's compiled graph (no bytecode in
        # Dynamo).  Its capture sequence deliberately ends the with blocks outside
        # the with protocol: it stores every bound __exit__ to a local, exits the
        # ordinary contexts through that local and leaves TF modes to
        # GraphFunction (docs/rewriter.md, "The stand-in graph").  pyverify's
        # context-not-exited there is true and expected, and so is
        # with-body-uncovered (its stores and exit calls are outside the
        # with's handler: a trace function's raise there leaves the context
        # entered); anywhere else they fail.
        lo, hi = capture[key]
        if tag == "G" and d["check"] in ("context-not-exited",
                                         "with-body-uncovered") and \
                lo <= d["offset"] <= hi:
            return "graph-capture-by-design"
        return None

    findings = {}
    res = ro.check_fixtures(pairs, version, pyverify, findings, by_design)
    per = collections.OrderedDict((v, [0, 0]) for v in VARIANTS)
    expects = {}
    fps = collections.Counter()
    for key, expect, *_ in pairs:
        v = key.split("/", 1)[0]
        verdict, fp = res[key]
        fps.update({"%s (%s)" % (c, v): n for c, n in fp.items()})
        per[v][1] += 1
        expects.setdefault(v, collections.Counter())[expect] += 1
        if verdict == "as expected":
            per[v][0] += 1
        else:
            detail = "; ".join("%s@%s %s: %s" % (d["check"], d.get("offset"),
                                                 d["code"].split("|")[0], d["message"][:160])
                               for d in findings.get(key, [])[:4])
            failures.append("pyverify %s: %s [%s]" % (key, verdict, detail))
    return per, expects, fps


def stdlib_sources(nfiles):
    """(path, text) of the first ``nfiles`` top-level stdlib modules: from
    the stdlib folder, or (the 3.14 oracle: Pyodide keeps its stdlib in
    /lib/python314.zip) from the zip on sys.path that holds them."""
    files = sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py")))
    if files:
        for f in files[:nfiles]:
            try:
                with open(f, encoding="utf-8") as fh:
                    yield f, fh.read()
            except UnicodeDecodeError:
                continue
        return
    import zipfile
    for z in sys.path:
        if z.endswith(".zip") and os.path.isfile(z):
            with zipfile.ZipFile(z) as zf:
                names = sorted(n for n in zf.namelist()
                               if n.endswith(".py") and "/" not in n)
                for n in names[:nfiles]:
                    try:
                        yield os.path.join(z, n), zf.read(n).decode("utf-8")
                    except UnicodeDecodeError:
                        continue
            return


def assembler_roundtrip(failures, nfiles):
    files = list(stdlib_sources(nfiles))

    def walk(co):
        yield co
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                yield from walk(c)
    n = same = split = depth = 0
    for f, text in files:
        try:
            top = compile(text, f, "exec")
        except SyntaxError:
            continue
        for co in walk(top):
            n += 1
            ins = asm.decode(co)
            names = asm.localsplus_names(co)
            res = asm.assemble(ins, {x: i for i, x in enumerate(names)},
                               co.co_firstlineno)
            if any(b in SUPERINSTRUCTIONS for b in co.co_code[::2]):
                split += 1
            elif (res.code, res.exceptiontable) == (co.co_code, co.co_exceptiontable) and \
                    list(co.replace(co_linetable=res.linetable).co_positions()) == \
                    list(co.co_positions()):
                same += 1
            else:
                failures.append("round trip: %s (%s)" % (co.co_qualname, f))
            # generators start at depth 1 before 3.13 (RETURN_GENERATOR pushes
            # in 3.13); 3.13 never writes a co_stacksize below 1
            start = 1 if co.co_flags & 0x3a0 and VERSION < (3, 13) else 0
            d = analysis.stack_depths(ins, start_depth=start).max_depth
            if d == co.co_stacksize or (VERSION >= (3, 13) and d == 0 and
                                        co.co_stacksize == 1):
                depth += 1
            else:
                failures.append("stack depth %d != co_stacksize %d: %s (%s)"
                                % (d, co.co_stacksize, co.co_qualname, f))
    return len(files), n, same, split, depth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pyverify", default=ro.PYVERIFY,
                    help="the pyverify binary (default: build-dev or build)")
    ap.add_argument("--no-variants-runtime", action="store_true",
                    help="skip the forked runtime runs of the buggy variants")
    ap.add_argument("--variants-sample", type=int, default=0, metavar="N",
                    help="run each buggy variant at run time at N break "
                    "points where it applies only (one per case first; in "
                    "one serial worker)")
    ap.add_argument("--keep", metavar="DIR",
                    help="also write every checked code object as DIR/<variant>/"
                         "<case>@<offset>.<frame|resume|graph>.marshal")
    ap.add_argument("--roundtrip-files", type=int, default=40, metavar="N",
                    help="stdlib modules for the assembler round trip (d)")
    a = ap.parse_args()
    version = "%d.%d" % VERSION
    t0 = time.time()
    failures = []
    calls, eligible, rejected = count_break_points()
    print("python %s: %d cases, %d CALLs, %d eligible break points; rejected: %s"
          % (version, len(rc.CASES), calls, eligible,
             ", ".join("%s %d" % kv for kv in sorted(rejected.items()))))
    unused = set(rc.CASES) - {n for n, _, _ in ro.BREAKS}
    if unused:
        print("cases without an eligible break point here: %s" % ", ".join(sorted(unused)))

    runs, raising = runtime_oracle(failures)
    print("(a) runtime oracle, correct: %d break points, %d runs (%d raise)  %.1f s"
          % (len(ro.BREAKS), runs, raising, time.time() - t0), flush=True)
    if not a.no_variants_runtime:
        with tempfile.TemporaryDirectory() as d:
            if a.variants_sample:
                print("    (a sample: each variant at %d break points where "
                      "it applies)" % a.variants_sample)
            runtime_variants(failures, d, report=print_variant_row,
                             sample=a.variants_sample)
    if a.pyverify and os.path.exists(a.pyverify):
        per, expects, fps = static_checks(failures, a.pyverify, version, a.keep)
        print("(b, c) pyverify check --python-version=%s (frame, resume; + graph helper "
              "for correct):" % version)
        for v, (good, total) in per.items():
            ex = ", ".join("%s %d" % kv for kv in sorted(expects.get(v, {}).items()))
            print("    %-32s as expected %3d / %3d   [expect: %s]" % (v, good, total, ex))
        if fps:
            print("    known findings (docs/rewriter.md): %s"
                  % json.dumps(dict(sorted(fps.items()))))
    else:
        failures.append("pyverify binary not found (%r): (b) and (c) not run" % a.pyverify)
    files, n, same, split, depth = assembler_roundtrip(failures, a.roundtrip_files)
    print("(d) assembler on %d stdlib modules: %d code objects, %d round-trip byte for "
          "byte, %d with a superinstruction (split, not compared), stack depth == "
          "co_stacksize %d" % (files, n, same, split, depth))
    print("time %.1f s" % (time.time() - t0))
    if failures:
        print("%d FAILURE(S):" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
