# The frame's break instruction is located structurally: the frame's
# instruction with the original's opcode and argument whose result flows
# into the resume call (BreakLocation.h); source positions only break ties.
# Frames emitted without a location table -- as real rewriters often emit
# them -- are proved like the rest. Before, with the break operation repeated in the frame (the resume call)
# and no positions, the frame came out "unknown: matches-eager: cannot
# locate the break instruction in the frame".
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: %pyverify prove %t/stripped.pvb | FileCheck %s --check-prefix=STRIPPED
# STRIPPED:      stripped.pvb: [frame] proved
# STRIPPED:      stripped.pvb: [resume:0] proved
# STRIPPED:      pyverify: 1 file(s), 2 result(s): 2 proved, 0 refuted, 0 unknown
#
# The bundle may name the frame's break instruction (frame_break_offset);
# one that is not the original's operation is no break instruction.
# RUN: %pyverify prove %t/named.pvb | FileCheck %s --check-prefix=NAMED
# NAMED:      named.pvb: [frame] proved
# RUN: %not --code 3 %pyverify prove %t/misnamed.pvb | FileCheck %s --check-prefix=MISNAMED
# MISNAMED:   misnamed.pvb: [frame] unknown: matches-eager: cannot locate the break instruction in the frame: the frame's instruction at frame_break_offset {{[0-9]+}} is {{[A-Z_]+}}, not the original's CALL {{[0-9]+}} at break_offset

import dis
import marshal
import os
import sys


def branches(x):                 # tests/python/rewriter_cases.py
    with Ctx("br"):
        if x > 0:
            y = op("pos", x)
        else:
            y = op("neg", -x)
        y = op("join", y)
    return y


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    out = sys.argv[1]
    # A break point whose frame holds the break operation more than once
    # (the resume call is a CALL of the same argument).
    for bp in pr.break_points(branches):
        if bp.reason is not None:
            continue
        rw = pr.rewrite(branches, bp.offset, variant="correct")
        pr.write_bundle(os.path.join(out, "plain.pvb"), rw)
        with open(os.path.join(out, "plain.pvb"), "rb") as f:
            b = marshal.load(f)
        want = [i for i in dis.get_instructions(b["original"])
                if i.offset == b["break_offset"]][0]
        same = [i for i in dis.get_instructions(b["frame"])
                if i.opname == want.opname and i.arg == want.arg]
        if want.opname == "CALL" and len(same) >= 2:
            break
    else:
        raise SystemExit("no break point with a repeated operation")
    located = [i.offset for i in same if i.positions == want.positions]
    assert len(located) == 1, (want, same)
    from pyverify_rewriter.bundle import strip_locations
    b = strip_locations(b)
    with open(os.path.join(out, "stripped.pvb"), "wb") as f:
        marshal.dump(b, f)
    # The located one, named; and the frame's first instruction, misnamed.
    for name, off in (("named", located[0]), ("misnamed", 0)):
        c = dict(b)
        c["frame_break_offset"] = off
        with open(os.path.join(out, name + ".pvb"), "wb") as f:
            marshal.dump(c, f)
