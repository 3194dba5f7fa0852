# The hand-over (docs/prove.md, "The hand-over"): for a torch-function mode
# the frame replays, it must hand the resume function a class whose
# __enter__ does nothing (Environment.def: PYV_ENV_CLASS, the rewriter's
# modestack.NoEnterMode and TorchDynamo's NoEnterTorchFunctionMode, each
# loaded from its module's import global). What the resume prologue's
# BEFORE_WITH does follows from the value the frame passes, not from the
# claim (before, the claim's kind was taken as given and the frame's value
# was never looked at).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s generate %t
#
# The correct rewrite hands modestack.NoEnterMode: both proved.
# RUN: %pyverify prove %t/correct.pvb | FileCheck %s --check-prefix=CORRECT
# CORRECT: correct.pvb: [frame] proved
# CORRECT: correct.pvb: [resume:0] proved
# CORRECT: 2 result(s): 2 proved, 0 refuted, 0 unknown
#
# The frame hands over modestack.Mode, the mode class itself: the resume
# prologue pushes the mode a second time (the rewriter variant
# mode-class-handed shows it at run time: the mode is on the stack twice
# inside the resume function).
# RUN: %not --code 1 %pyverify prove %t/mode-class.pvb | FileCheck %s --check-prefix=CLASS
# CLASS: mode-class.pvb: [resume:0] refuted: exactly-once: the resume prologue re-enters context 0, claimed a torch-function mode, with a value that is no no-op-enter mode class (the frame passes an attribute Mode for ___stack0): its BEFORE_WITH pushes the mode a second time
#
# TorchDynamo's spelling of the no-enter class is in the table too.
# RUN: %pyverify prove %t/dynamo-polyfill.pvb | FileCheck %s --check-prefix=DYNAMO
# DYNAMO: dynamo-polyfill.pvb: [frame] proved
# DYNAMO: [{{[0-9]+}}] the module __import_torch_dot__dynamo_dot_polyfills exists and has NoEnterTorchFunctionMode
# DYNAMO: dynamo-polyfill.pvb: [resume:0] proved
#
# A global that merely looks like it is an arbitrary value: it enters.
# RUN: %not --code 1 %pyverify prove %t/lookalike.pvb | FileCheck %s --check-prefix=LOOK
# LOOK: lookalike.pvb: [resume:0] refuted: exactly-once: {{.*}}pushes the mode a second time
#
# A claim of kind "with" whose value is the no-enter class: its BEFORE_WITH
# enters nothing.
# RUN: %not --code 1 %pyverify prove %t/with-claim.pvb | FileCheck %s --check-prefix=WITH
# WITH: with-claim.pvb: [resume:0] refuted: exactly-once: the resume prologue re-enters context 0, claimed a with context, with the no-op-enter mode class (the frame passes the no-op-enter mode class for ___stack0): its BEFORE_WITH enters nothing
#
# Without the frame, the value cannot be traced: unknown, never proved.
# RUN: %not --code 3 %pyverify prove %t/no-frame.pvb | FileCheck %s --check-prefix=NOFRAME
# NOFRAME: no-frame.pvb: [resume:0] unknown: exactly-once: couldn't prove: the value the frame passes for ___stack0 cannot be traced: the bundle has no frame
import marshal
import os
import sys


def nested(cm1, cm2, f, g):
    with cm1:
        a = f(1)
        with cm2 as y:
            b = g(a, y)
            f(b)
        g(b)
    return a


def rename(code, old, new):
    names = tuple(new if n == old else n for n in code.co_names)
    assert names != code.co_names, (old, code.co_names)
    return code.replace(co_names=names)


def retarget(code, old_global, new_global, old_attr, new_attr):
    """The frame's `LOAD_GLOBAL old_global; LOAD_ATTR old_attr` pair loads
    new_global.new_attr instead (new co_names entries; other loads of
    old_global are left alone)."""
    import dis
    names = list(code.co_names) + [new_global, new_attr]
    g, a = len(names) - 2, len(names) - 1
    raw = bytearray(code.co_code)
    insts = list(dis.get_instructions(code))
    done = 0
    for k, i in enumerate(insts[:-1]):
        j = insts[k + 1]
        if (i.opname == "LOAD_GLOBAL" and i.argval == old_global
                and j.opname == "LOAD_ATTR" and j.argval == old_attr):
            raw[i.offset + 1] = (g << 1) | (i.arg & 1)
            raw[j.offset + 1] = a
            done += 1
    assert done == 1, done
    return code.replace(co_names=tuple(names), co_code=bytes(raw))


def generate(outdir):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(nested) if b.reason is None)
    rw = pr.rewrite(nested, bp.offset, variant="correct", modes=(0,))
    correct = os.path.join(outdir, "correct.pvb")
    pr.write_bundle(correct, rw)
    with open(correct, "rb") as f:
        bundle = marshal.load(f)

    def write(name, **changes):
        b = dict(bundle)
        b.update(changes)
        with open(os.path.join(outdir, name + ".pvb"), "wb") as f:
            marshal.dump(b, f)

    frame = bundle["frame"]
    write("mode-class", frame=rename(frame, "NoEnterMode", "Mode"))
    write("dynamo-polyfill", frame=retarget(
        frame, "__import_pyverify_rewriter_dot_modestack",
        "__import_torch_dot__dynamo_dot_polyfills", "NoEnterMode",
        "NoEnterTorchFunctionMode"))
    write("lookalike", frame=rename(
        frame, "NoEnterMode", "NoEnterModeLookalike"))
    resumes = [dict(r) for r in bundle["resumes"]]
    resumes[0]["contexts"] = [dict(c, kind="with")
                              for c in resumes[0]["contexts"]]
    write("with-claim", resumes=resumes)
    write("no-frame", frame=None)


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
