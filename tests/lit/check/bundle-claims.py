# A bundle's claims are checked against the original: each resume
# function's original_offset and the frame's break_offset must be
# instruction starts (bundle-offset-invalid), and the contexts a resume
# function claims must be those active in the original there
# (resume-contexts-mismatch).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t
# RUN: %pyverify check %t/correct.pvb | FileCheck %s --check-prefix=CORRECT
# CORRECT: pyverify: 1 file(s), 3 code object(s): 0 error(s)

# original_offset moved into the inline caches of the LOAD_GLOBAL at 30.
# RUN: %not --code 1 %pyverify check %t/offset.pvb | FileCheck %s --check-prefix=OFFSET
# OFFSET:      error: original_offset 32 of resume:0 is not an instruction start of the original [bundle-offset-invalid]
# OFFSET-NEXT:   in [resume:0] f (line {{[0-9]+}}) at offset 0: RESUME 0

# The resume function claims no context, where the original has the with
# entered at 4 BEFORE_WITH active (its handler at 84, its __exit__ in slot
# 0).
# RUN: %not --code 1 %pyverify check %t/contexts.pvb | FileCheck %s --check-prefix=CONTEXTS
# CONTEXTS:      error: resume:0 claims contexts [] at original offset 28, but the contexts active in the original there are [with handler 84 slot 0] [resume-contexts-mismatch]
# CONTEXTS-NEXT:   in [resume:0] f (line {{[0-9]+}}) at offset 28: STORE_FAST 2
# A claim that cannot be checked is named, never skipped (issue 24): with
# bundle-offset-invalid switched off, the bad offset still leaves
# resume-contexts-mismatch not run (before: clean, exit 0).
# RUN: %not --code 1 %pyverify check --checks=-bundle-offset-invalid %t/offset.pvb | FileCheck %s --check-prefix=OFFSET-OFF
# OFFSET-OFF-NOT: [bundle-offset-invalid]
# OFFSET-OFF:     error: 1 enabled check did not run on this code object: resume:0's original_offset 32 is not an instruction start of the original (bundle-offset-invalid); not run: resume-contexts-mismatch [checks-not-run]
# OFFSET-OFF-NEXT:  in [resume:0] f
# OFFSET-OFF:     pyverify: 1 file(s), 3 code object(s): 1 error(s)

# An original whose exception table does not decode: its own checks are not
# run, and neither are the claims over its contexts nor the frame's check at
# its break (before: only the table's error).
# RUN: %not --code 1 %pyverify check %t/badorig.pvb | FileCheck %s --check-prefix=BADORIG
# BADORIG-DAG: error: co_exceptiontable {{.*}} [exception-table-decode]
# BADORIG-DAG: error: {{[0-9]+}} enabled checks did not run on this code object: the exception table is malformed (exception-table-decode); {{.*}} [checks-not-run]
# BADORIG-DAG: error: 1 enabled check did not run on this code object: the original is not well-formed; not run: frame-contexts-mismatch [checks-not-run]
# BADORIG-DAG: error: 1 enabled check did not run on this code object: the original's contexts at resume:0's original_offset 28 are unknown: the original is not well-formed; not run: resume-contexts-mismatch [checks-not-run]
# BADORIG:     pyverify: 1 file(s), 3 code object(s): 4 error(s), 0 warning(s), 0 remark(s); 3 code object(s) not fully checked
# A frame without the break: frame-contexts-mismatch cannot be judged, and
# says so (before: nothing, and `check` called the bundle clean).
# RUN: %not --code 1 %pyverify check %t/nobreak.pvb | FileCheck %s --check-prefix=NOBREAK
# NOBREAK:      error: 1 enabled check did not run on this code object: the frame's break instruction was not found: {{.*}}; not run: frame-contexts-mismatch [checks-not-run]
# NOBREAK-NEXT:   in [frame] <lambda>
# NOBREAK:      pyverify: 1 file(s), 3 code object(s): 1 error(s), 0 warning(s), 0 remark(s); 1 code object(s) not fully checked
import dis
import os
import sys


def f(cm, g):
    with cm:
        y = g(1)
        z = h(y)
    return z


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(f) if b.reason is None)
    d = pr.rewrite(f, bp.offset).to_bundle_dict()
    out = sys.argv[1]
    pr.write_bundle(os.path.join(out, "correct.pvb"), d)
    starts = {i.offset: i.opname for i in dis.get_instructions(f)}
    # The resume point: STORE_FAST y at 28, then LOAD_GLOBAL h at 30.
    assert d["resumes"][0]["original_offset"] == 28, d["resumes"][0]
    assert starts[28] == "STORE_FAST" and starts[30] == "LOAD_GLOBAL", starts
    bad = dict(d, resumes=[dict(d["resumes"][0], original_offset=32)])
    pr.write_bundle(os.path.join(out, "offset.pvb"), bad)
    bad = dict(d, resumes=[dict(d["resumes"][0], contexts=[])])
    pr.write_bundle(os.path.join(out, "contexts.pvb"), bad)
    bad = dict(d, original=d["original"].replace(co_exceptiontable=b"\x88"))
    pr.write_bundle(os.path.join(out, "badorig.pvb"), bad)
    bad = dict(d, frame=(lambda: None).__code__)
    pr.write_bundle(os.path.join(out, "nobreak.pvb"), bad)
