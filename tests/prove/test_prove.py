#!/usr/bin/env python3.11
"""`pyverify prove` on the fixture corpus, the correlated cases and the stdlib.

Fixture mode (default):

    test_prove.py --pyverify BIN --python-dir python WORKDIR

  generates into WORKDIR
    fixtures/     `python3.11 -m pyverify_rewriter gen-fixtures` (every
                  variant of every eligible break point of
                  tests/python/rewriter_cases.py, with manifest.json)
    correlated/   tests/prove/gen_correlated.py (correlated/ and flipped/)
  runs `pyverify prove --format=json --jobs=N` once on both, and requires:
    (a) every correct bundle whose expect is "ok" is proved (all its results),
        and so is every bundle of another variant the rewriter declares
        correct (EXPECT "ok", but entries-not-redirected): list-replay,
        Dynamo's set_stack([graph_out_0[k], ...]) replay shape;
    (b) every bundle of a buggy variant is refuted, each refuted result naming
        its property and carrying a counterexample (a well-formed refutation
        may have none) -- except entries-not-redirected, which the rewriter
        README documents as semantically equivalent: it must be proved;
    (c) every correlated case is proved and every flipped one refuted;
    (d) for the fixture break points with a torch-function mode active:
        correct and list-replay proved, entered-twice,
        mode-leaked-on-exception, mode-class-handed and
        list-replay-pop-forgotten refuted (each must have a fixture);
    (e) determinism: `--format=text` gives the same stdout with --jobs=1
        (twice) and --jobs=2.
    (f) frames without a location table: every fixture bundle written by
        `gen-fixtures --strip-locations` (no position for any instruction)
        gets the verdict it gets with its tables, no correct bundle is
        unknown, the correct "ok" ones (and list-replay's) are proved and the
        buggy ones (but entries-not-redirected) refuted (the break instruction is located
        structurally, BreakLocation.h).  `--strip-locations` runs only (f).
    (g) the solver cross-check: `--solver=z3` (Z3 decides every path
        condition) gives every result exactly as the default literal rule
        does, but for the timing and Z3's resource count (Solver.h).
  Bundles whose expect is "stack-depth-conflict" in the correct and
  entries-not-redirected variants (the rewriter's documented join conflict)
  are reported, not judged.  Prints per-variant verdict counts, the refuted
  properties, and the event at the first divergence of each counterexample.

Stdlib mode:

    test_prove.py --pyverify BIN --python-dir python --stdlib \
        [--plain-only] --pyc-dir build/corpus/stdlib WORKDIR

  generates the correct bundle of every CALL inside a with body of the
  compiled stdlib (gen-stdlib) into WORKDIR/stdlib, proves them, and reports
  the proportions proved / unknown / refuted with the unknown reasons.  Fails
  only if a bundle is refuted (a bundle the rewriter itself marks
  "stack-depth-conflict" is listed, not failed).  Every code object of the
  compiled stdlib is proved too (exactly-once on plain code, started before
  gen-stdlib and running while it writes the bundles; its JSON is kept in
  WORKDIR/plain-stdlib.json): none may be refuted unless `pyverify check`
  reports an error of the same code object that backs it (corroboration():
  for a trace or eval-breaker raise, a with-body-uncovered run or
  context-not-exited finding at the raising instruction -- what
  tests/versions/check_with_body_coverage.py confirms at run time; for
  another exactly-once violation, a context error of the code object; for
  well-formed, its dataflow errors).  The unknowns of both runs are
  ratcheted (unknown-ratchet.json, per interpreter version: the script runs
  under the interpreter whose stdlib --pyc-dir holds).  --plain-only: the
  code objects only (no gen-stdlib bundles); --exclude test leaves the
  stdlib's own test suite out (Debian's 3.11 has none; pyenv's 3.12 and
  3.13 have 56,000 code objects of it), under the ratchet key
  stdlib-code-objects-no-test-3.N.

A bundle's verdict: proved if all its results are proved, refuted if any is
refuted, else unknown (also when it has no result at all).  Exit 0 on
success, 1 on any violation (listed) or when the binary has no `prove`
command.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

from summarize import bundle_verdict, group_results  # same directory

HERE = os.path.dirname(os.path.abspath(__file__))
PROVE_TIMEOUT = 5400        # seconds for one prove run (--prove-timeout)

BUGGY_EQUIVALENT = "entries-not-redirected"
MODE_VARIANTS_REFUTED = ("entered-twice", "mode-leaked-on-exception",
                         "mode-class-handed", "list-replay-pop-forgotten")
MODE_VARIANTS_PROVED = ("correct", "list-replay")
# Variants proved like correct (rule (a)): correct and every variant whose
# EXPECT is "ok" but the equivalent one (set by correct_variants()).
CORRECT_VARIANTS = ("correct", "list-replay")


def correct_variants(python_dir):
    """"correct" and the rewriter's other variants whose EXPECT is "ok",
    but entries-not-redirected (a buggy variant that is equivalent)."""
    global CORRECT_VARIANTS
    sys.path.insert(0, os.path.abspath(python_dir))
    try:
        from pyverify_rewriter import EXPECT
    finally:
        sys.path.pop(0)
    CORRECT_VARIANTS = ("correct",) + tuple(
        v for v, e in EXPECT.items()
        if e == "ok" and v not in ("correct", BUGGY_EQUIVALENT))
    for v in MODE_VARIANTS_PROVED:
        if v not in CORRECT_VARIANTS:
            raise SetupError("%s is not a variant expected ok" % v)
    return CORRECT_VARIANTS


# ---------------------------------------------------------------------------
# Running things

class SetupError(Exception):
    pass


def run(cmd, env=None, timeout=None):
    timeout = timeout or PROVE_TIMEOUT
    try:
        return subprocess.run(cmd, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SetupError("timed out after %d s: %s" % (timeout, " ".join(cmd)))


def has_prove(pyverify):
    p = run([pyverify, "prove", "--help"], timeout=60)
    text = p.stdout + p.stderr
    return p.returncode == 0 and "Unknown command" not in text


def gen_rewriter(python_dir, what, outdir, extra=()):
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    env = dict(os.environ, PYTHONPATH=python_dir or "")
    p = run([sys.executable, "-m", "pyverify_rewriter", what, outdir,
             *extra], env=env)
    if p.returncode != 0:
        raise SetupError("%s failed:\n%s%s" % (what, p.stdout, p.stderr))
    return p.stdout


def gen_correlated(outdir):
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    p = run([sys.executable, os.path.join(HERE, "gen_correlated.py"), outdir])
    if p.returncode != 0:
        raise SetupError("gen_correlated.py failed:\n%s%s"
                         % (p.stdout, p.stderr))
    with open(os.path.join(outdir, "manifest.json")) as f:
        return json.load(f)


def prove(pyverify, paths, fmt="json", jobs=2, extra=()):
    """(returncode, parsed JSON or text stdout, seconds)."""
    cmd = [pyverify, "prove", "--format=" + fmt, "--jobs=%d" % jobs,
           *extra, *paths]
    t0 = time.monotonic()
    p = run(cmd)
    dt = time.monotonic() - t0
    return prove_output(p.returncode, p.stdout, p.stderr, fmt, dt)


def prove_output(returncode, stdout, stderr, fmt, dt):
    """prove()'s answer from a finished run."""
    if returncode not in (0, 1, 3):
        raise SetupError("pyverify prove exited %d:\n%s" % (
            returncode, stderr[-3000:]))
    if fmt != "json":
        return returncode, stdout, dt
    try:
        data = json.loads(stdout)
    except ValueError as e:
        raise SetupError("pyverify prove --format=json printed no JSON (%s):"
                         "\n%s\n%s" % (e, stdout[:2000], stderr[-2000:]))
    if not isinstance(data, dict) or "results" not in data:
        raise SetupError("pyverify prove JSON has no 'results'")
    return returncode, data, dt


class BackgroundProve:
    """`pyverify prove --format=json` started now and collected by
    result() (prove()'s answer), so that the harness does other work (the
    bundle generation) meanwhile.  Its output goes to OUT.json and OUT.err:
    a pipe nobody reads would stall it."""

    def __init__(self, pyverify, paths, out, jobs=2):
        self.cmd = [pyverify, "prove", "--format=json", "--jobs=%d" % jobs,
                    *paths]
        self.out, self.err = out + ".json", out + ".err"
        with open(self.out, "w") as fo, open(self.err, "w") as fe:
            self.t0 = time.monotonic()
            self.p = subprocess.Popen(self.cmd, stdout=fo, stderr=fe)

    def result(self):
        left = PROVE_TIMEOUT - (time.monotonic() - self.t0)
        try:
            self.p.wait(timeout=max(left, 1))
        except subprocess.TimeoutExpired:
            self.kill()
            raise SetupError("timed out after %d s: %s"
                             % (PROVE_TIMEOUT, " ".join(self.cmd)))
        dt = time.monotonic() - self.t0
        with open(self.out) as fo, open(self.err) as fe:
            return prove_output(self.p.returncode, fo.read(), fe.read(),
                                "json", dt)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


# ---------------------------------------------------------------------------
# (f) Frames without a location table

def stripped(a, work, fx, by, violations):
    """(f): the fixtures again, written by `gen-fixtures --strip-locations`
    (every code object without a location table), get the verdict each
    bundle gets with its tables (the break instruction is located
    structurally); no correct bundle is unknown, every correct bundle whose
    expect is "ok" is proved and every bundle of a buggy variant (but the
    equivalent one) is refuted.  Prints the verdicts per variant."""
    import marshal
    sd = os.path.join(work, "stripped")
    gen_rewriter(a.python_dir, "gen-fixtures", sd, ["--strip-locations"])
    with open(os.path.join(sd, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(sd, manifest[0]["file"]), "rb") as fh:
        positions = set(marshal.load(fh)["frame"].co_positions())
    if positions != {(None, None, None, None)}:
        raise SetupError("--strip-locations left positions: %r"
                         % sorted(positions, key=repr)[:4])
    rc, data, dt = prove(a.pyverify, [sd], jobs=a.jobs)
    sby = group_results(data)
    counts = collections.defaultdict(collections.Counter)
    for m in manifest:
        name, v = m["file"], m["variant"]
        want = bundle_verdict(by.get(os.path.realpath(os.path.join(fx, name)),
                                     []))
        res = sby.get(os.path.realpath(os.path.join(sd, name)), [])
        got = bundle_verdict(res)
        counts[v][got] += 1
        if want != got:
            violations.append("(f) stripped %s: %s, with its location tables "
                              "%s: %s" % (name, got, want, short(res)))
        if got == "unknown" and v in CORRECT_VARIANTS:
            violations.append("(f) stripped %s: unknown: %s" % (name,
                                                                short(res)))
        if v in CORRECT_VARIANTS and m["expect"] == "ok" and \
                got != "proved":
            violations.append("(f) stripped %s: expected proved, got %s: %s"
                              % (name, got, short(res)))
        if v not in CORRECT_VARIANTS + (BUGGY_EQUIVALENT,) and \
                got != "refuted":
            violations.append("(f) stripped %s: expected refuted, got %s: %s"
                              % (name, got, short(res)))
    print("\nstripped location tables (gen-fixtures --strip-locations, "
          "%.1f s, exit %d): %d bundles" % (dt, rc, len(manifest)))
    for v in sorted(counts):
        print("  %-34s %s" % (v, ", ".join(
            "%s %d" % (k, counts[v][k]) for k in ("proved", "refuted",
                                                  "unknown"))))


def stripped_mode(a, work):
    """--strip-locations: only (f), against the fixtures with their tables."""
    violations = []
    fx = os.path.join(work, "fixtures")
    gen_rewriter(a.python_dir, "gen-fixtures", fx)
    _, data, dt = prove(a.pyverify, [fx], jobs=a.jobs)
    by = group_results(data)
    print("pyverify prove --jobs=%d on the fixtures with their location "
          "tables: %d results in %.1f s" % (a.jobs, len(data["results"]), dt))
    stripped(a, work, fx, by, violations)
    return violations, "%d fixture bundles with and without location " \
        "tables" % len(by)


# ---------------------------------------------------------------------------
# Results per bundle

def divergence_event(r):
    """The event at the first divergence of a counterexample (emitted side,
    else eager), or a placeholder."""
    cex = r.get("counterexample")
    if not cex:
        return "(no counterexample)"
    i = cex.get("divergence", -1)
    for side in ("emitted", "eager"):
        steps = cex.get(side) or []
        if 0 <= i < len(steps):
            s = steps[i]
            return "%s %s" % (s.get("opname"), "[%s]" % s["event"]
                              if s.get("event") else "(no event)")
    return "(past the end of both traces)"


def refuted_signature(results):
    """{(target, property, reason, step at the first divergence)} of the
    refuted results."""
    def step(r):
        cex = r.get("counterexample") or {}
        i = cex.get("divergence", -1)
        steps = cex.get("emitted") or []
        if 0 <= i < len(steps):
            return (steps[i].get("code"), steps[i].get("offset"),
                    steps[i].get("opname"), steps[i].get("event"))
        return None
    return {(r.get("target"), r.get("property"), r.get("reason"), step(r))
            for r in results if r.get("verdict") == "refuted"}


def refutation_problems(results):
    """What is wrong with the refuted results of a bundle that must be
    refuted (empty list: fine)."""
    refuted = [r for r in results if r.get("verdict") == "refuted"]
    if not refuted:
        return ["not refuted (%s)" % ", ".join(
            "%s: %s%s" % (r.get("target"), r.get("verdict"),
                          (" (%s)" % r["reason"]) if r.get("reason") else "")
            for r in results) or "no results"]
    out = []
    for r in refuted:
        if not r.get("property"):
            out.append("[%s] refuted without a property" % r.get("target"))
        elif r["property"] != "well-formed" and not r.get("counterexample"):
            out.append("[%s] refuted (%s) without a counterexample"
                       % (r.get("target"), r["property"]))
    return out


def short(results):
    return "; ".join("[%s] %s%s%s" % (
        r.get("target"), r.get("verdict"),
        (" " + r["property"]) if r.get("property") else "",
        (": " + r["reason"]) if r.get("reason") else "") for r in results) \
        or "no results"


# ---------------------------------------------------------------------------
# Fixture mode

def fixture_mode(a, work):
    violations = []
    fx = os.path.join(work, "fixtures")
    co = os.path.join(work, "correlated")
    out = gen_rewriter(a.python_dir, "gen-fixtures", fx)
    print("gen-fixtures: " + next((line for line in out.splitlines()
                                   if line.startswith("total:")), "?"))
    with open(os.path.join(fx, "manifest.json")) as f:
        manifest = json.load(f)
    cmanifest = gen_correlated(co)
    print("gen_correlated: %d bundles" % len(cmanifest))

    rc, data, dt = prove(a.pyverify, [fx, co], jobs=a.jobs)
    by = group_results(data)
    nres = len(data["results"])
    print("pyverify prove --jobs=%d: %d results for %d bundles in %.1f s "
          "(exit %d)" % (a.jobs, nres, len(manifest) + len(cmanifest), dt, rc))
    if nres == 0:
        violations.append("pyverify prove returned no results")

    # --- the fixtures, per variant ----------------------------------------
    counts = collections.defaultdict(collections.Counter)
    props = collections.defaultdict(collections.Counter)
    events = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(collections.Counter)
    reported = []
    mode_table = collections.defaultdict(collections.Counter)
    # refutation signatures of the correct rewrite, per break point: a buggy
    # bundle refuted only for reasons its correct twin is refuted for too
    # is no evidence of the variant's own bug (reported, see below)
    correct_sig = {}
    for m in manifest:
        if m["variant"] == "correct":
            res = by.get(os.path.realpath(os.path.join(fx, m["file"])), [])
            correct_sig[(m["case"], m["break_offset"])] = refuted_signature(res)
    same_as_correct = collections.defaultdict(list)
    for m in manifest:
        path = os.path.realpath(os.path.join(fx, m["file"]))
        res = by.get(path, [])
        v, variant, expect = bundle_verdict(res), m["variant"], m["expect"]
        key = "%s/%s@%d" % (variant, m["case"], m["break_offset"])
        counts[variant][v] += 1
        for r in res:
            if r.get("verdict") == "refuted":
                props[variant][r.get("property") or "(none)"] += 1
                events[variant]["%s: %s" % (r.get("property"),
                                            divergence_event(r))] += 1
            elif r.get("verdict") == "unknown":
                reasons[variant][r.get("reason") or "(none)"] += 1
        has_mode = any(c["kind"] == "mode" for c in m["contexts"])
        if has_mode:
            mode_table[variant][v] += 1
        # (a), (b), (d)
        if variant in CORRECT_VARIANTS + (BUGGY_EQUIVALENT,):
            if expect != "ok":
                reported.append("%s: expect %s, %s (%s)"
                                % (key, expect, v, short(res)))
            elif v != "proved":
                violations.append("%s%s: expected proved, got %s: %s" % (
                    "(d) " if has_mode else "(a) " if variant in
                    CORRECT_VARIANTS else "(b) ", key, v, short(res)))
        else:
            for p in refutation_problems(res):
                violations.append("%s%s: %s" % (
                    "(d) " if variant in MODE_VARIANTS_REFUTED else "(b) ",
                    key, p))
            sig = refuted_signature(res)
            if sig and sig <= correct_sig.get((m["case"], m["break_offset"]),
                                              set()):
                same_as_correct[variant].append(key)

    print("\nfixtures: bundle verdicts per variant")
    print("  %-34s %7s %7s %7s" % ("variant", "proved", "refuted", "unknown"))
    for variant in sorted(counts, key=lambda v: (v != "correct", v)):
        c = counts[variant]
        print("  %-34s %7d %7d %7d" % (variant, c["proved"], c["refuted"],
                                       c["unknown"]))
    print("\nrefuted results: property histogram per variant")
    for variant in sorted(props):
        print("  %-34s %s" % (variant, dict(sorted(props[variant].items()))))
    print("\nrefuted results: property and the step at the first divergence")
    for variant in sorted(events):
        print("  %s" % variant)
        for e, n in events[variant].most_common():
            print("    %4d  %s" % (n, e))
    if reasons:
        print("\nunknown results: reasons per variant")
        for variant in sorted(reasons):
            for why, n in reasons[variant].most_common():
                print("  %-34s %4d  %s" % (variant, n, why))
    if same_as_correct:
        print("\nbuggy bundles refuted only for reasons the correct rewrite "
              "of the same break point is refuted for too (no evidence of "
              "the variant's own bug):")
        for variant in sorted(same_as_correct):
            keys = same_as_correct[variant]
            print("  %-34s %4d  e.g. %s" % (variant, len(keys), keys[0]))
    print("\nentries-not-redirected (documented as semantically equivalent): "
          "%s" % dict(counts.get(BUGGY_EQUIVALENT, {})))
    print("torch-function-mode break points: %s" % {
        v: dict(c) for v, c in sorted(mode_table.items())})
    for variant in MODE_VARIANTS_PROVED + MODE_VARIANTS_REFUTED:
        if not mode_table.get(variant):
            violations.append("(d) no %s fixture with a mode (rewriter "
                              "variant missing?)" % variant)
    if reported:
        print("\nreported, not judged (the rewriter's stack-depth conflict):")
        for line in reported:
            print("  " + line)

    # --- (c) correlated / flipped ----------------------------------------
    cc = collections.defaultdict(collections.Counter)
    print("\ncorrelated cases:")
    for m in cmanifest:
        path = os.path.realpath(os.path.join(co, m["pvb"]))
        res = by.get(path, [])
        v = bundle_verdict(res)
        cc[m["kind"]][v] += 1
        extra = ""
        if v == "refuted":
            extra = "  (%s)" % "; ".join(
                "%s: %s" % (r.get("property"), divergence_event(r))
                for r in res if r.get("verdict") == "refuted")
        elif v == "unknown":
            extra = "  (%s)" % short(res)
        print("  %-10s %-38s %s%s" % (m["kind"], m["name"], v, extra))
        if m["kind"] == "correlated" and v != "proved":
            violations.append("(c) correlated %s: expected proved, got %s: %s"
                              % (m["name"], v, short(res)))
        if m["kind"] == "flipped":
            for p in refutation_problems(res):
                violations.append("(c) flipped %s: %s" % (m["name"], p))
    print("  correlated: %s, flipped: %s" % (dict(cc["correlated"]),
                                             dict(cc["flipped"])))

    # --- (e) determinism ---------------------------------------------------
    if a.skip_determinism:
        print("\ndeterminism: skipped (--skip-determinism)")
    else:
        outs = []
        for jobs in (1, 1, 2):
            _, text, dt = prove(a.pyverify, [fx, co], fmt="text", jobs=jobs)
            outs.append(strip_timing(text))
            print("prove --format=text --jobs=%d: %d lines, %.1f s"
                  % (jobs, text.count("\n"), dt))
        if not outs[0].strip():
            violations.append("(e) --format=text printed nothing")
        for i, label in ((1, "second --jobs=1 run"), (2, "--jobs=2 run")):
            if outs[i] != outs[0]:
                violations.append("(e) %s differs from the first --jobs=1 "
                                  "run: %s" % (label, first_diff(outs[0],
                                                                 outs[i])))
        print("determinism: %s" % ("identical" if outs[0] == outs[1] == outs[2]
                                   else "DIFFERENT"))

    solver_crosscheck(a, [fx, co], data, violations)
    total = len(manifest) + len(cmanifest)
    stripped(a, work, fx, by, violations)
    return violations, "%d bundles (%d fixtures, %d correlated)" % (
        total, len(manifest), len(cmanifest))


def solver_crosscheck(a, paths, data, violations):
    """(g): `--solver=z3` on PATHS gives DATA's results (the default
    solver's), field by field, but for seconds and rlimit_used."""
    _, z3data, dt = prove(a.pyverify, paths, jobs=a.jobs,
                          extra=["--solver=z3"])

    def comparable(results):
        return [{k: v for k, v in r.items()
                 if k not in ("seconds", "rlimit_used")} for r in results]
    mine, theirs = comparable(data["results"]), comparable(z3data["results"])
    differ = [m for m, t in zip(mine, theirs) if m != t]
    if len(mine) != len(theirs):
        violations.append("(g) --solver=z3 gives %d results, the default %d"
                          % (len(theirs), len(mine)))
    for m in differ[:10]:
        violations.append("(g) --solver=z3 differs on %s [%s]"
                          % (m.get("file"), m.get("target")))
    print("\nsolver cross-check (--solver=z3, %.1f s): %d results, %s"
          % (dt, len(theirs), "identical" if not differ and
             len(mine) == len(theirs) else "%d DIFFERENT" % len(differ)))


_TIMING = re.compile(r"\d+(\.\d+)?\s*(s|ms|seconds)\b")


def strip_timing(text):
    lines = text.splitlines()
    if lines and _TIMING.search(lines[-1]):
        lines = lines[:-1]
    return "\n".join(lines)


def first_diff(x, y):
    xl, yl = x.splitlines(), y.splitlines()
    for i in range(max(len(xl), len(yl))):
        p = xl[i] if i < len(xl) else "<end>"
        q = yl[i] if i < len(yl) else "<end>"
        if p != q:
            return "line %d: %r vs %r" % (i + 1, p[:160], q[:160])
    return "(same lines, different line endings)"


# ---------------------------------------------------------------------------
# Stdlib mode

def stdlib_mode(a, work):
    if not a.pyc_dir or not os.path.isdir(a.pyc_dir):
        raise SetupError("--stdlib needs --pyc-dir (the compiled stdlib, "
                         "`make corpus`): %r" % a.pyc_dir)
    sd = os.path.join(work, "stdlib")
    # The code objects do not need the bundles: they are proved while
    # gen-stdlib writes them (the two together keep both cores busy).
    inputs = [a.pyc_dir]
    if a.exclude:  # the top-level entries of the compiled stdlib but those
        inputs = [os.path.join(a.pyc_dir, e) for e in sorted(os.listdir(a.pyc_dir))
                  if e not in a.exclude]
    plain = BackgroundProve(a.pyverify, inputs,
                            os.path.join(work, "plain-stdlib"), jobs=a.jobs)
    plain.excluded = list(a.exclude)
    try:
        if a.plain_only:
            violations = []
            _, pn = plain_stdlib(plain, violations)
            return violations, "%d stdlib code objects" % pn
        violations, n, pn = stdlib_bundles(a, sd, plain)
    finally:
        plain.kill()
    return violations, "%d stdlib bundles, %d stdlib code objects" % (n, pn)


def stdlib_bundles(a, sd, plain):
    """The stdlib bundles, then the code objects (PLAIN, started)."""
    violations = []
    out = gen_rewriter(a.python_dir, "gen-stdlib", sd,
                       ["--pyc-dir", a.pyc_dir])
    for line in out.splitlines():
        if line.strip().startswith(("bundles", "expect:")):
            print("gen-stdlib: " + line.strip())
    files = sorted(os.path.realpath(os.path.join(r, f)) for r, _, fs in os.walk(sd)
                   for f in fs if f.endswith(".pvb"))
    if not files:
        raise SetupError("gen-stdlib wrote no bundle under %s" % sd)
    rc, data, dt = prove(a.pyverify, [sd], jobs=a.jobs)
    by = group_results(data)
    print("pyverify prove --jobs=%d: %d results for %d bundles in %.1f s "
          "(exit %d)" % (a.jobs, len(data["results"]), len(files), dt, rc))
    import marshal
    counts = collections.Counter()
    reasons = collections.Counter()
    props = collections.Counter()
    listed = []
    for f in files:
        res = by.get(f, [])
        v = bundle_verdict(res)
        counts[v] += 1
        for r in res:
            if r.get("verdict") == "unknown":
                reasons[r.get("reason") or "(none)"] += 1
            if r.get("verdict") == "refuted":
                props[r.get("property") or "(none)"] += 1
        if v == "refuted":
            with open(f, "rb") as fh:
                expect = marshal.load(fh).get("expect", "ok")
            line = "%s: %s" % (os.path.relpath(f, sd), short(res))
            if expect == "ok":
                violations.append("refuted: " + line)
            else:
                listed.append("(expect %s) %s" % (expect, line))
    n = len(files)
    print("\nstdlib: %d bundles" % n)
    for v in ("proved", "unknown", "refuted"):
        print("  %-8s %6d  %5.1f%%" % (v, counts[v], 100.0 * counts[v] / n))
    if reasons:
        print("unknown results by reason:")
        for why, k in reasons.most_common():
            print("  %6d  %s" % (k, why))
    if props:
        print("refuted results by property: %s" % dict(props))
    for line in listed:
        print("  refuted as the rewriter expects: " + line)
    ratchet(violations, "stdlib-bundles", counts["unknown"])
    pv, pn = plain_stdlib(plain, violations)
    return violations, n, pn


RATCHET = os.path.join(HERE, "unknown-ratchet.json")


def version_key(key):
    """The ratchet key of the running interpreter's stdlib: KEY for the
    default version, KEY-3.N for another (the stdlib is that version's)."""
    from pyverify_rewriter._tables import TRAITS
    default = min(TRAITS)
    v = tuple(sys.version_info[:2])
    return key if v == default else "%s-%d.%d" % ((key,) + v)


def ratchet(violations, key, unknown):
    """The number of unknown results may only go down: more than the
    committed tests/prove/unknown-ratchet.json allows is a failure; fewer
    asks for the file to be lowered (it is never raised)."""
    key = version_key(key)
    with open(RATCHET) as f:
        limit = json.load(f)[key]
    print("ratchet %s: %d unknown (allowed %d)" % (key, unknown, limit))
    if unknown > limit:
        violations.append("ratchet %s: %d unknown results, more than the %d "
                          "of %s" % (key, unknown, limit, RATCHET))
    elif unknown < limit:
        print("  fewer than allowed: lower %s in %s to %d" %
              (key, os.path.basename(RATCHET), unknown))


def plain_stdlib(plain, violations):
    """exactly-once on every code object of the compiled stdlib (plain code:
    delegation and forwarding allowed; PLAIN, the BackgroundProve on them):
    no refutation, unknowns ratcheted."""
    rc, data, dt = plain.result()
    res = data["results"]
    counts = collections.Counter(r.get("verdict") for r in res)
    reasons = collections.Counter(r.get("reason") or "(none)" for r in res
                                  if r.get("verdict") == "unknown")
    print("\nstdlib code objects (plain code, %.1f s, exit %d): %d results: "
          "%d proved, %d unknown, %d refuted" %
          (dt, rc, len(res), counts["proved"], counts["unknown"],
           counts["refuted"]))
    for why, k in reasons.most_common(8):
        print("  %6d  %s" % (k, why))
    refuted = [r for r in res if r.get("verdict") == "refuted"]
    errors = check_errors(plain.cmd[0], sorted({r["file"] for r in refuted}))
    corroborated = collections.Counter()
    for r in refuted:
        found = errors.get((os.path.realpath(r["file"]), r.get("code")), [])
        why = corroboration(r, found)
        if why:
            corroborated[why] += 1
            continue
        violations.append("refuted plain code: %s [%s] %s: %s" % (
            r["file"], r.get("target"), r.get("code", ""), r.get("reason")))
    for why, k in corroborated.most_common():
        print("  refuted, and `check` reports the same code object's %s: %d"
              % (why, k))
    ratchet(violations, "stdlib-code-objects" + "".join(
        "-no-" + e for e in sorted(plain.excluded)), counts["unknown"])
    return counts, len(res)


# What a refutation of CPython's own code must agree with: `check`'s error
# findings on the same code object, each of which its runtime oracle backs
# (tests/versions/check_with_body_coverage.py: at a with-body-uncovered
# instruction a trace function's raise really skips __exit__ -- 3.12.1's
# and 3.13.0's compilers leave loop back edges and conditional jumps out of
# the with's handler; docs/versions.md, "Raise tiers"). A refutation with
# no such finding is a failure: the prover alone may not convict CPython.
CORROBORATING = {
    "tier": ("with-body-uncovered", "context-not-exited"),
    "exactly-once": ("context-not-exited", "context-exit-order",
                     "context-exited-twice", "with-body-uncovered"),
}


def corroboration(r, found):
    """Which `check` error (FOUND: (check, offset) pairs on the same code
    object) backs refuted result R, or None."""
    checks = {c for c, _, _ in found}
    if r.get("property") == "well-formed":
        return "dataflow errors (well-formed)" if checks else None
    steps = (r.get("counterexample") or {}).get("emitted") or []
    tier = [s for s in steps if s.get("event") and
            "a trace function or the eval breaker" in s["event"]]
    if tier:
        at = tier[-1]["offset"]
        hit = [c for c, lo, hi in found if c in CORROBORATING["tier"]
               and lo <= at <= hi]
        return ("%s (a trace or eval-breaker raise the compiler leaves "
                "outside the with's handler)" % hit[0]) if hit else None
    hit = sorted(checks & set(CORROBORATING["exactly-once"]))
    return hit[0] if hit else None


def check_errors(pyverify, files):
    """(file, qualname) -> [(check, first, last offset)] of `pyverify
    check`'s error-severity findings on FILES: a with-body-uncovered
    finding's runs "A OP .. B OP (n instructions)" (its message and its
    "also:" notes), any other finding's offset."""
    out = collections.defaultdict(list)
    if not files:
        return out
    p = run([pyverify, "check", "--format=json", "--jobs=2", *files])
    try:
        data = json.loads(p.stdout)
    except ValueError:
        raise SetupError("pyverify check printed no JSON: %s" % p.stderr[-2000:])
    for d in data.get("diagnostics", []):
        if d.get("severity") != "error":
            continue
        key = (os.path.realpath(d["file"]), d.get("code"))
        off = d.get("offset", 0)
        texts = [d["message"]] + [n["message"][len("also: "):]
                                  for n in d.get("notes", [])
                                  if n["message"].startswith("also: ")]
        runs = [UNCOVERED_RUN.match(t) for t in texts]
        runs = [(int(m.group(1)), int(m.group(2) or m.group(1)))
                for m in runs if m]
        for lo, hi in (runs if d["check"] == "with-body-uncovered" else
                       [(off, off)]):
            out[key].append((d["check"], lo, hi))
    return out


UNCOVERED_RUN = re.compile(r"^(\d+) \w+(?: \.\. (\d+) \w+ \(\d+ "
                           r"instructions\))? runs in the body")


# ---------------------------------------------------------------------------

def main(argv=None):
    global PROVE_TIMEOUT
    ap = argparse.ArgumentParser(
        description="pyverify prove on the fixtures, correlated cases and "
                    "stdlib bundles")
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("--python-dir", help="directory holding pyverify_rewriter")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--stdlib", action="store_true",
                    help="prove the stdlib bundles instead of the fixtures")
    ap.add_argument("--pyc-dir", help="compiled stdlib for --stdlib")
    ap.add_argument("--exclude", action="append", default=[],
                    help="--stdlib: a top-level entry of --pyc-dir whose code "
                    "objects are not proved (repeatable; the ratchet key says "
                    "so)")
    ap.add_argument("--plain-only", action="store_true",
                    help="--stdlib: only exactly-once on every code object "
                    "of the compiled stdlib, no gen-stdlib bundles")
    ap.add_argument("--prove-timeout", type=int, default=PROVE_TIMEOUT,
                    help="seconds allowed for one `pyverify prove` run "
                         "(default %(default)s)")
    ap.add_argument("--strip-locations", action="store_true",
                    help="only (f): the fixtures without location tables "
                         "against the fixtures with them")
    ap.add_argument("--skip-determinism", action="store_true",
                    help="skip check (e) (three more prove runs)")
    ap.add_argument("workdir")
    a = ap.parse_args(argv)
    PROVE_TIMEOUT = a.prove_timeout
    if not a.python_dir:
        a.python_dir = os.path.normpath(os.path.join(HERE, "..", "..",
                                                     "python"))
    a.python_dir = os.path.abspath(a.python_dir)
    a.pyverify = os.path.abspath(a.pyverify)
    work = os.path.abspath(a.workdir)
    os.makedirs(work, exist_ok=True)
    if not os.access(a.pyverify, os.X_OK):
        print("test_prove: %s is not an executable" % a.pyverify)
        return 1
    if not has_prove(a.pyverify):
        print("test_prove: FAIL: %s has no `prove` command" % a.pyverify)
        return 1
    try:
        correct_variants(a.python_dir)
        mode = (stdlib_mode if a.stdlib else
                stripped_mode if a.strip_locations else fixture_mode)
        violations, what = mode(a, work)
    except SetupError as e:
        print("test_prove: ERROR: %s" % e)
        return 1
    print()
    if violations:
        print("test_prove: FAIL: %d violation(s) over %s" % (len(violations),
                                                             what))
        for v in violations:
            print("  " + v)
        return 1
    print("test_prove: PASS: %s" % what)
    return 0


if __name__ == "__main__":
    sys.exit(main())
