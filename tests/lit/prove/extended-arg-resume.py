# A resume offset whose instruction carries an EXTENDED_ARG prefix
# (original_offset is where the prefix starts, as dis shows it): the
# original is started there, the resume function is proved. A refactoring
# once looked the offset up at the opcode after the prefix and made this
# "unknown: no contexts for the original at the offset".
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/ea.pvb | FileCheck %s --check-prefix=GEN
# GEN: resume at EXTENDED_ARG: True
# RUN: %pyverify prove %t/ea.pvb | FileCheck %s
# CHECK:      ea.pvb: [frame] proved
# CHECK:      ea.pvb: [resume:0] proved
# CHECK:      pyverify: 1 file(s), 2 result(s): 2 proved, 0 refuted, 0 unknown

import dis
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    # 300 locals first: `y`, stored right after the break, needs a prefix.
    src = ("def f(cm, g):\n" +
           "".join("    a%d = %d\n" % (i, i) for i in range(300)) +
           "    with cm:\n        y = g(1)\n    return y\n")
    ns = {}
    exec(compile(src, "extended_arg_resume.py", "exec"), ns)
    f = ns["f"]
    bp = next(b for b in pr.break_points(f) if b.reason is None)
    rw = pr.rewrite(f, bp.offset)
    at = {i.offset: i.opname for i in dis.get_instructions(f)}
    print("resume at EXTENDED_ARG:", at.get(rw.resume_offset) == "EXTENDED_ARG")
    pr.write_bundle(sys.argv[1], rw)
