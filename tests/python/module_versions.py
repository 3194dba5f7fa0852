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
(d) bundles are refused with NotImplementedError (they are 3.11's), and
    pyverify.dynamo verifies a frame and its resume function one by one.

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
        got = sorted((d.qualname, d.first_lineno, d.check, d.offset, d.message)
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

    try:
        pyverify.verify_bundle(original=f, frame=f)
        failures.append("verify_bundle accepted a %s bundle" % version)
    except NotImplementedError:
        pass

    # pyverify.dynamo: a frame that calls a resume function is not paired
    # into a bundle here; the frame and the resume function are verified
    # one by one, and the event says why.
    import pyverify.dynamo as dynamo
    ns = {}
    exec("def orig(x):\n    return g(x)\n"
         "def frame(x):\n    return __resume_at_4_1(x)\n"
         "def __resume_at_4_1(x):\n    return x\n", ns)
    hook = dynamo.Hook("log", None, False, None, 10)
    event = hook.check(ns["orig"].__code__, ns["frame"].__code__, ns)
    labels = [label for label, _ in event.reports]
    if event.bundle is not None or "3.11" not in (event.unpaired or "") or \
            labels != ["frame", "resume __resume_at_4_1"]:
        failures.append("dynamo hook under %s: unpaired %r, reports %r"
                        % (version, event.unpaired, labels))

    print("CPython %s: %d files, %d code objects through verify(): %d findings, "
          "the same as pyverify check's; live reader == marshal reader"
          % (version, n_files, n_codes, n_findings))
    for x in failures[:20]:
        print("FAIL " + x)
    print("PASS" if not failures else "FAIL: %d" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
