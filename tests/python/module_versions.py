"""`import pyverify` under python3.12 / python3.13 (the module built for that
interpreter, <build>/python-3.x), without pytest:

    PYTHONPATH=build/python-3.12 python3.12 tests/python/module_versions.py \
        --pyverify build/tools/pyverify/pyverify build/corpus/stdlib-3.12

Over every .pyc of PYC_DIR (that interpreter's stdlib, compiled by it; loaded
with marshal, so the code objects are live ones of the running interpreter):

(a) the live reader (CPython's API) and the marshal reader build the same
    code objects, field by field (_pyverify._compare_with_marshal);
(b) pyverify.verify(code) finds exactly what `pyverify check --format=json
    --python-version=3.x` finds on the same file (check, code object,
    offset, message): the live object is read as the running version's
    bytecode;
(c) an error planted in a live code object (co_stacksize 1 under a with) is
    reported;
(d) bundles work under the running version: verify_bundle checks a frame
    that holds a with at its break, and reports frame-contexts-mismatch
    for one that does not (the pair check follows this version's calls);
    dump_bundle writes python_version and `pyverify check` reads the .pvb
    as this version's bytecode, with the same findings; and
    pyverify.dynamo pairs a frame with its resume function.

Prints the counts; exits 1 on any difference.
"""
import argparse
import json
import marshal
import os
import subprocess
import sys

import pyverify
from pyverify import _pyverify


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pyverify", required=True)
    ap.add_argument("pyc_dir")
    a = ap.parse_args()
    version = "%d.%d" % sys.version_info[:2]
    failures = []
    if _pyverify.bytecode_version != version:
        failures.append("the module reads %s bytecode under %s"
                        % (_pyverify.bytecode_version, version))

    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(a.pyc_dir)
                   for f in fs if f.endswith(".pyc"))
    cli = subprocess.run([a.pyverify, "check", "--format=json", "--jobs=0",
                          a.pyc_dir], capture_output=True, text=True)
    if cli.returncode not in (0, 1):
        print(cli.stderr)
        return 2
    expected = {}
    for d in json.loads(cli.stdout)["diagnostics"]:
        expected.setdefault(d["file"], []).append(
            (d["code"], d["firstlineno"], d["check"], d["offset"], d["message"]))

    n_files = n_codes = n_findings = 0
    for path in files:
        with open(path, "rb") as f:
            root = marshal.loads(f.read()[16:])
        n_files += 1
        diff = _pyverify._compare_with_marshal(root, marshal.dumps(root))
        if diff is not None:
            failures.append("%s: live reader differs: %s" % (path, diff))
        report = pyverify.verify(root)
        n_codes += report.code_objects
        got = sorted((d.code, d.firstlineno, d.check, d.offset, d.message)
                     for d in report)
        n_findings += len(got)
        want = sorted(expected.get(path, []))
        if got != want:
            failures.append("%s: verify() %s, check %s" % (path, got[:3], want[:3]))

    def f(cm, xs):
        for x in xs:
            with cm:
                g(x)  # noqa: F821
    if not pyverify.verify(f).ok:
        failures.append("a with in a loop is not clean")
    small = pyverify.verify(f.__code__.replace(co_stacksize=1))
    if "stacksize-too-small" not in {d.check for d in small}:
        failures.append("co_stacksize 1 not reported: %s" % small)

    failures += bundle_checks(a, version)

    print("CPython %s: %d files, %d code objects through verify(): %d findings, "
          "the same as pyverify check's; live reader == marshal reader"
          % (version, n_files, n_codes, n_findings))
    for x in failures[:20]:
        print("FAIL " + x)
    print("PASS" if not failures else "FAIL: %d" % len(failures))
    return 1 if failures else 0


def _call_offset(code, argc):
    """The offset of the call with ``argc`` arguments in ``code`` (CALL n)."""
    import dis
    for ins in dis.get_instructions(code):
        if ins.opname == "CALL" and ins.arg == argc:
            return ins.offset
    raise AssertionError("no CALL %d in %s" % (argc, code.co_name))


def bundle_checks(args, version):
    """(d): bundles under the running version."""
    import tempfile
    failures = []
    ns = {}
    exec("def orig(cm, g, x):\n    with cm:\n        return g(x)\n"
         "def bad(cm, g, x):\n    return g(x)\n", ns)
    orig, bad = ns["orig"].__code__, ns["bad"].__code__
    brk = _call_offset(orig, 1)
    # The frame is the original itself: it holds the with at its break.
    good = pyverify.verify_bundle(original=orig, frame=orig, break_offset=brk)
    if any(d.check == "frame-contexts-mismatch" for d in good) or \
            any(d.check == "checks-not-run" for d in good):
        failures.append("verify_bundle of the original as its frame: %s" % good)
    wrong = pyverify.verify_bundle(original=orig, frame=bad, break_offset=brk)
    if "frame-contexts-mismatch" not in {d.check for d in wrong}:
        failures.append("a frame without the with at its break: no "
                        "frame-contexts-mismatch under %s: %s" % (version, wrong))
    with tempfile.TemporaryDirectory() as tmp:
        pvb = os.path.join(tmp, "bad.pvb")
        pyverify.dump_bundle(pvb, original=orig, frame=bad, break_offset=brk)
        with open(pvb, "rb") as fh:
            if marshal.load(fh).get("python_version") != version:
                failures.append("dump_bundle did not write python_version %s" % version)
        p = subprocess.run([args.pyverify, "check", "--format=json", pvb],
                           capture_output=True, text=True)
        got = [d["check"] for d in json.loads(p.stdout)["diagnostics"]] \
            if p.stdout else []
        if got != [d.check for d in wrong]:
            failures.append("pyverify check of the %s .pvb: %s (exit %d, %s); "
                            "verify_bundle: %s" % (version, got, p.returncode,
                                                   p.stderr[-300:],
                                                   [d.check for d in wrong]))
        other = "3.11" if version != "3.11" else "3.12"
        p = subprocess.run([args.pyverify, "check", "--python-version=" + other,
                            pvb], capture_output=True, text=True)
        if p.returncode == 0 or "python_version" not in p.stdout + p.stderr:
            failures.append("--python-version=%s on a %s bundle: exit %d, %s"
                            % (other, version, p.returncode,
                               (p.stdout + p.stderr)[-300:]))

    # prove_bundle proves them as the running version's bytecode: the
    # original as its own frame holds the with at its break (proved), a
    # frame that drops it does not (refuted: matches-eager at the break).
    proved = pyverify.prove_bundle(original=orig, frame=orig, break_offset=brk)
    if [r["verdict"] for r in proved["results"]] != ["proved"]:
        failures.append("prove_bundle of the original as its frame under %s: "
                        "%s" % (version, proved))
    refuted = pyverify.prove_bundle(original=orig, frame=bad, break_offset=brk)
    if [r["verdict"] for r in refuted["results"]] != ["refuted"]:
        failures.append("prove_bundle of a frame without the with under %s: "
                        "%s" % (version, refuted))

    # pyverify.dynamo pairs a frame with its resume function: the resume
    # offset is the instruction after the break (here the call g(x)).
    import dis
    import pyverify.dynamo as dynamo
    ns = {}
    exec("def orig(x):\n    return g(x)\n", ns)
    after = [i.offset for i in dis.get_instructions(ns["orig"].__code__)
             if i.offset > _call_offset(ns["orig"].__code__, 1)][0]
    name = "__resume_at_%d_1" % after
    exec("def frame(x):\n    return %s(g(x))\n"
         "def %s(x):\n    return x\n" % (name, name), ns)
    hook = dynamo.Hook("log", None, False, None, 10)
    event = hook.check(ns["orig"].__code__, ns["frame"].__code__, ns)
    labels = [label for label, _ in event.reports]
    if event.bundle is None or event.unpaired is not None or labels != ["bundle"]:
        failures.append("dynamo hook under %s: unpaired %r, reports %r"
                        % (version, event.unpaired, labels))
    return failures


if __name__ == "__main__":
    sys.exit(main())
