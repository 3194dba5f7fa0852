# Values followed through what the frame does to them (docs/prove.md, "The
# environment"): a side-effect replay shaped like TorchDynamo's,
# set_torch_function_mode_stack([graph_out_0[k], ...]) -- BUILD_LIST n of
# subscripts of the compiled graph's output, through locals -- is n pushes,
# and a restore of a saved stack is recognised by its value. Before, a
# BUILD_LIST was an unknown value and the replay was read as one push per
# claimed mode, an approximation: measured, forgotten.pvb and two-modes.pvb
# were both "unknown: couldn't prove: the only violation rests on an
# approximation" (the other three proved, as now).
#
# The frames are written in Python (FRAMES below) and put into the
# rewriter's bundle for simple() (its original and resume function).
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s generate %t
#
# RUN: %pyverify prove %t/popped.pvb %t/restored.pvb %t/via-local.pvb | FileCheck %s --check-prefix=OK
# OK: popped.pvb: [frame] proved
# OK: restored.pvb: [frame] proved
# OK: via-local.pvb: [frame] proved
# OK: 3 file(s), 6 result(s): 6 proved, 0 refuted, 0 unknown
#
# RUN: %not --code 1 %pyverify prove %t/forgotten.pvb | FileCheck %s --check-prefix=FORGOT
# FORGOT: forgotten.pvb: [frame] refuted: exactly-once: frame raises out with mode#0 still active
#
# RUN: %not --code 1 %pyverify prove %t/two-modes.pvb | FileCheck %s --check-prefix=TWO
# TWO: two-modes.pvb: [frame] refuted: matches-eager: at the break instruction the frame holds [mode, mode], but the original holds [mode] at break_offset
#
# An element that is not the graph's output: still read as a replay, an
# approximation; the violation on it is unknown, not refuted.
# RUN: %not --code 3 %pyverify prove %t/not-graph.pvb | FileCheck %s --check-prefix=APPROX
# APPROX: not-graph.pvb: [frame] unknown: exactly-once: couldn't prove: the only violation rests on an approximation
import marshal
import os
import sys

MS = "__import_pyverify_rewriter_dot_modestack"

FRAMES = {
    "popped": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    MS.set_stack([graph_out_0[0]])
    try:
        r = f(1)
    except:
        MS.pop()
        raise
    return RESUME(MS.NoEnterMode, r)
""",
    "forgotten": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    MS.set_stack([graph_out_0[0]])
    try:
        r = f(1)
    except:
        raise
    return RESUME(MS.NoEnterMode, r)
""",
    "restored": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    prev = MS.get_stack()
    MS.set_stack([graph_out_0[0]])
    try:
        r = f(1)
    except:
        MS.set_stack(prev)
        raise
    return RESUME(MS.NoEnterMode, r)
""",
    "via-local": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    out = graph_out_0
    modes = [out[0]]
    MS.set_stack(modes)
    try:
        r = f(1)
    except:
        MS.pop()
        raise
    return RESUME(MS.NoEnterMode, r)
""",
    "two-modes": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    MS.set_stack([graph_out_0[0], graph_out_0[1]])
    try:
        r = f(1)
    except:
        MS.pop()
        MS.pop()
        raise
    return RESUME(MS.NoEnterMode, r)
""",
    "not-graph": """
def simple(m, f):
    graph_out_0 = __compiled_fn_1(m, f)
    MS.set_stack([some_mode])
    try:
        r = f(1)
    except:
        raise
    return RESUME(MS.NoEnterMode, r)
""",
}


def simple(m, f):
    with m:
        f(1)
    return 0


def generate(outdir):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(simple) if b.reason is None)
    rw = pr.rewrite(simple, bp.offset, variant="correct", modes=(0,))
    path = os.path.join(outdir, "rewriter.pvb")
    pr.write_bundle(path, rw)
    with open(path, "rb") as f:
        bundle = marshal.load(f)
    resume = "__resume_at_%d_0" % bundle["resumes"][0]["original_offset"]
    for name, src in FRAMES.items():
        src = src.replace("MS.", MS + ".").replace("RESUME", resume)
        g = {}
        exec(compile(src, "frame_" + name, "exec"), g)
        b = dict(bundle, frame=g["simple"].__code__)
        b.pop("frame_break_offset", None)
        with open(os.path.join(outdir, name + ".pvb"), "wb") as f:
            marshal.dump(b, f)


if __name__ == "__main__":
    generate(sys.argv[2])
