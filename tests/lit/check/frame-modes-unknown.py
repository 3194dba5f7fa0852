# frame-contexts-mismatch compares the contexts the frame holds at its break
# with the original's at break_offset: its ordinary contexts and its
# torch-function modes. Where the modes cannot be counted (here two paths
# reach the break, one having pushed a mode), the check did not run and
# says so -- before, when the ordinary contexts agreed, it returned with no
# finding at all, as if the modes agreed too.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: %not --code 1 %pyverify check --format=json %t/modes-differ.pvb | FileCheck %s
# CHECK: "check": "checks-not-run"
# CHECK: the frame's modes are not counted: paths reaching it hold different modes; not run: frame-contexts-mismatch
#
# The same frame pushing on both paths is counted, and reported.
# RUN: %not --code 1 %pyverify check --format=json %t/modes-pushed.pvb | FileCheck %s --check-prefix=PUSHED
# PUSHED: "check": "frame-contexts-mismatch"

import marshal
import os
import sys


def orig(flag, g):
    return g()


def differ(flag, g):
    if flag:
        __import_pyverify_rewriter_dot_modestack.push(None)  # noqa: F821
    return g()


def pushed(flag, g):
    __import_pyverify_rewriter_dot_modestack.push(None)  # noqa: F821
    return g()


def call_offset(code):
    import dis
    return [i.offset for i in dis.get_instructions(code)
            if i.opname == "CALL"][-1]


for name, frame in (("modes-differ", differ), ("modes-pushed", pushed)):
    d = {"format": "pyverify-bundle", "version": 1,
         "original": orig.__code__, "frame": frame.__code__,
         "break_offset": call_offset(orig.__code__),
         "frame_break_offset": call_offset(frame.__code__), "resumes": []}
    with open(os.path.join(sys.argv[1], name + ".pvb"), "wb") as fh:
        marshal.dump(d, fh)
