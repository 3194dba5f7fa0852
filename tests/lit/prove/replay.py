# pyverify prove --replay=DIR writes one python3.11 script per refuted result
# (none for proved ones), named <input path, '/' as '.'>.<target>.py. Each
# script embeds the code objects, imports no pyverify module, drives them
# down the counterexample's path with stand-ins and exits 1 when the runs
# show the divergence or violation; a well-formed refutation has no path:
# "cannot replay", exit 2.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: cd %t && %not --code 1 %pyverify prove --replay=replay in.pvb in-correct.pvb exit-missing.pvb stacksize.pvb | FileCheck %s --check-prefix=PROVE
# PROVE: exit-missing.pvb: [frame] refuted: exactly-once
# PROVE: in.pvb: [resume:0] refuted: matches-eager: the original executes CONTAINS_OP(0) where the resume function executes CONTAINS_OP(1)
# PROVE: pyverify: 4 file(s), 8 result(s): 4 proved, 4 refuted, 0 unknown
# RUN: ls %t/replay | FileCheck %s --check-prefix=FILES
# FILES:      exit-missing.frame.py
# FILES-NEXT: in.resume_0.py
# FILES-NEXT: stacksize.frame.py
# FILES-NEXT: stacksize.resume_0.py
# FILES-NOT:  .py
# RUN: %not --code 1 grep -E "^(import|from) pyverify" %t/replay/in.resume_0.py
#
# matches-eager: the original from the resume offset and the resume
# function, one step per line; ">>" marks the first divergence.
# RUN: cd %t/replay && %not --code 1 %python -I in.resume_0.py | FileCheck %s --check-prefix=ME
# ME:      pyverify replay: in.pvb [resume:0] matches-eager: the original executes CONTAINS_OP(0)
# ME:      eager (original from offset {{[0-9]+}} with [ctx#0] active):
# ME-NEXT: >>   0 original:{{[0-9]+}} CONTAINS_OP(0)  {stack1 in xs}
# ME:      emitted (resume:0):
# ME-NEXT: >>   0 resume:0:{{[0-9]+}} CONTAINS_OP(1)  {stack1 in xs}
# ME-NEXT:         (prologue, not in the path, run free: {{.*}} CALL, {{.*}} BEFORE_WITH)
# ME:      first divergence: eager step 0, emitted step 0: the runs differ in the operation
# ME-NEXT: result: reproduced: the emitted code does not match eager execution (exit status 1)
#
# exactly-once: the frame's own path; the context stand-in logs its enter
# and the scheduled raise skips the exit.
# RUN: %not --code 1 %python %t/replay/exit-missing.frame.py | FileCheck %s --check-prefix=EO
# EO:      eager: not run: exactly-once is a property of the emitted code alone
# EO:      emitted (frame):
# EO:      CALL(0) [enter ctx#0]
# EO:      CALL(1) [raises] (ScheduledRaise: the counterexample says frame:{{[0-9]+}} CALL raises)
# EO:      >> {{.*}} RERAISE(1) [raises; raises out of frame]
# EO-NEXT:      -> raises out
# EO-NEXT: violation at emitted step {{[0-9]+}}: frame raises out with ctx#0 still active: never exited on this path
# EO-NEXT: result: reproduced: exactly-once is violated (exit status 1)
#
# RUN: %not --code 2 %python %t/replay/stacksize.frame.py | FileCheck %s --check-prefix=WF
# WF:      finding: offset {{[0-9]+}}: {{.*}} [stacksize-too-small]
# WF-NEXT: cannot replay: well-formed refutation (no path)
#
# A directory that cannot be created is an error naming it (exit 2).
# RUN: touch %t/plain
# RUN: %not --code 2 %pyverify prove --replay=%t/plain/sub %t/in.pvb 2>&1 | FileCheck %s --check-prefix=ERR
# ERR: error: prove: --replay: cannot create directory '{{.*}}plain/sub':

import os
import sys


def membership(cm, inner, f, x, xs):
    with cm:
        y = f(x)
        if y in xs:
            with inner:
                f(y)
    return y


def body(cm, f, x):
    with cm:
        y = f(x)
        f(y)
    return y


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    out = sys.argv[1]
    bp = next(b for b in pr.break_points(membership) if b.reason is None)
    for variant, name in (("operand-flipped", "in"), ("correct", "in-correct")):
        pr.write_bundle(os.path.join(out, name + ".pvb"),
                        pr.rewrite(membership, bp.offset, variant=variant))
    bp = next(b for b in pr.break_points(body) if b.reason is None)
    for variant, name in (("exit-missing-on-exception", "exit-missing"),
                          ("stacksize-no-exc-edges", "stacksize")):
        pr.write_bundle(os.path.join(out, name + ".pvb"),
                        pr.rewrite(body, bp.offset, variant=variant))
