# A resume function whose body differs from the original in one argument
# only -- `is` became `is not`, `in` became `not in` -- enters a context on
# the opposite paths. Operations are structural (opcode, raw argument,
# resolved operand), so matches-eager is refuted; when IS_OP 0 and IS_OP 1
# were the same term, both were proved.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: %not --code 1 %pyverify prove %t/is.pvb | FileCheck %s --check-prefix=IS
# IS:      is.pvb: [frame] proved
# IS:      is.pvb: [resume:0] refuted: matches-eager: at POP_JUMP_FORWARD_IF_FALSE the original's branch is {{(not )?}}taken and the resume function's is {{(not )?}}taken (the two sides test different values)
# IS:      pyverify: 1 file(s), 2 result(s): 1 proved, 1 refuted, 0 unknown
# RUN: %not --code 1 %pyverify prove %t/in.pvb | FileCheck %s --check-prefix=IN
# IN:      in.pvb: [resume:0] refuted: matches-eager: the original executes CONTAINS_OP(0) where the resume function executes CONTAINS_OP(1)
# IN:      pyverify: 1 file(s), 2 result(s): 1 proved, 1 refuted, 0 unknown
# The unflipped rewrites are proved.
# RUN: %pyverify prove %t/is-correct.pvb %t/in-correct.pvb | FileCheck %s --check-prefix=OK
# OK:      pyverify: 2 file(s), 4 result(s): 4 proved, 0 refuted, 0 unknown

import os
import sys


def identity(cm, inner, f, x):
    with cm:
        y = f(x)
        if y is x:
            with inner:
                f(y)
    return y


def membership(cm, inner, f, x, xs):
    with cm:
        y = f(x)
        if y in xs:
            with inner:
                f(y)
    return y


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    for name, fn in (("is", identity), ("in", membership)):
        bp = next(b for b in pr.break_points(fn) if b.reason is None)
        for variant, suffix in (("operand-flipped", ""), ("correct", "-correct")):
            rw = pr.rewrite(fn, bp.offset, variant=variant)
            pr.write_bundle(os.path.join(sys.argv[1], name + suffix + ".pvb"), rw)
        assert rw.notes.get("flipped") is None
