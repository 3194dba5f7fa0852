"""Where the interpreter looks up the exception its eval breaker raises at a
loop's back edge, against pyverify's model of it (RaiseModel.h,
breakerRaisesAtTarget: 3.11 and 3.12 at the jump target - 1, 3.13 at the
jump).

    python3.X tests/versions/check_back_edge.py build/tools/pyverify/pyverify

The running interpreter compiles

    with cm:
        while n:
            n = n + 0

whose only eval-breaker check is the back edge, and the test makes variants
of its exception table: as compiled; the with's entry extended over the back
jump; the entry started at the loop head (the target - 1 uncovered). For
each variant it runs the code while another thread interrupts the main one
(KeyboardInterrupt raised by the eval breaker at the back edge) and records
whether __exit__ ran, and runs `pyverify check --python-version=X.Y` on the
marshalled code. pyverify must report context-not-exited exactly for the
variants whose interrupt skipped __exit__, and at least one variant of each
outcome must occur. Exits 1 with the disagreements listed.
"""
import _thread
import dis
import json
import marshal
import os
import subprocess
import sys
import tempfile
import threading
import time
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "lit", "Inputs"))
import breakcode as bc  # noqa: E402  (the exception-table codec)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import breaker_inject  # noqa: E402  (no threads in Pyodide: its interrupt buffer)

VERSION = "%d.%d" % sys.version_info[:2]


class CM:
    exited = 0

    def __enter__(self):
        return self

    def __exit__(self, *a):
        CM.exited += 1
        return False


def spin(cm, n):
    with cm:
        while n:
            n = n + 0


def variants():
    co = spin.__code__
    table = bc.entries(co)
    insts = list(dis.get_instructions(co))
    # 3.11 closes the loop with POP_JUMP_BACKWARD_IF_TRUE, later versions
    # with JUMP_BACKWARD; both check the eval breaker when they jump back.
    jump = next(i for i in insts
                if "BACKWARD" in i.opname and "NO_INTERRUPT" not in i.opname)
    end_of_jump = insts[insts.index(jump) + 1].offset
    head = jump.argval
    # The with body's entry: the one whose handler starts with PUSH_EXC_INFO;
    # WITH_EXCEPT_START.
    handler_of = {i.offset: i for i in insts}
    body = [k for k, e in enumerate(table)
            if handler_of[e.target].opname == "PUSH_EXC_INFO"
            and insts[insts.index(handler_of[e.target]) + 1].opname == "WITH_EXCEPT_START"]
    # 3.14 splits the body's entry around the NOT_TAKEN of `while n:`: the
    # entry that covers the jump, or else the last one before it.
    covering = [k for k in body if table[k].start <= jump.offset < table[k].end]
    before = [k for k in body if table[k].start <= jump.offset]
    assert body and (covering or before), table
    k = (covering or before)[-1]
    e = table[k]
    out = {"as compiled": co}
    # (Only an unconditional back edge: 3.11's POP_JUMP_BACKWARD_IF_TRUE tests
    # n's truth and so raises by itself, looked up at the jump.)
    if covering and e.start < jump.offset and jump.opname == "JUMP_BACKWARD":
        out["entry ends before the back jump"] = bc.set_entry(co, k, end=jump.offset)
    if e.end < end_of_jump and all(t.start >= end_of_jump or t is e or t.end <= e.start
                                   for t in table):
        out["entry extended over the back jump"] = bc.set_entry(co, k, end=end_of_jump)
    if e.start < head:
        out["entry starts at the loop head"] = bc.set_entry(co, k, start=head)
    return out


def exit_ran(code):
    """Runs \\p code until the main thread is interrupted; whether __exit__ ran."""
    CM.exited = 0
    f = types.FunctionType(code, globals())
    if not breaker_inject.THREADS:
        try:
            breaker_inject.interrupt_back_edge(lambda: f(CM(), 1), code)
        except KeyboardInterrupt:
            pass
        return CM.exited == 1
    t = threading.Thread(target=lambda: (time.sleep(0.2), _thread.interrupt_main()))
    t.start()
    try:
        f(CM(), 1)
    except KeyboardInterrupt:
        pass
    t.join()
    return CM.exited == 1


def pyverify_finds(pyverify, code, tmp):
    path = os.path.join(tmp, "spin.marshal")
    with open(path, "wb") as f:
        f.write(marshal.dumps(code))
    out = subprocess.run([pyverify, "check", "--format=json", "--python-version=" + VERSION,
                          path], capture_output=True, text=True)
    report = json.loads(out.stdout)
    # with-body-uncovered is about a trace function's raise at the jump,
    # another tier (3.12.1 leaves the jump itself outside the with's entry:
    # check_with_body_coverage.py runs that one); the eval breaker's is
    # what this test measures.
    return [d["check"] for d in report["diagnostics"]
            if d["check"] != "with-body-uncovered"]


def main():
    pyverify = sys.argv[1]
    errors, outcomes = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for name, code in variants().items():
            ran = exit_ran(code)
            checks = pyverify_finds(pyverify, code, tmp)
            found = "context-not-exited" in checks
            outcomes.add(ran)
            print(f"{VERSION} {name}: __exit__ {'ran' if ran else 'skipped'}; pyverify: "
                  f"{', '.join(checks) or 'clean'}")
            if found == ran or (ran and checks):
                errors.append(f"{name}: __exit__ {'ran' if ran else 'skipped'} but pyverify "
                              f"reported {checks or 'nothing'}")
    if len(outcomes) < 2:
        errors.append("every variant had the same outcome: the test shows nothing")
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
