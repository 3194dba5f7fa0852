# A resume function re-enters the with active at the break with 3.14's own
# enter (COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL
# __enter__; CALL 0) and jumps into the copied body. When the copied body's
# entries still lead to the copy of the original's handler (the rewriter's
# entries-not-redirected: the old handler is byte-identical to the new one,
# so the code is correct), the with's exit slots are the entry's depth - 2
# in 3.14 (the __exit__ function and its self), not depth - 1: pyverify
# looked for the bound __exit__ in the self slot and reported
# with-body-entered-without-enter on the jump (80 of the rewriter's 100
# fixtures of that variant on 3.14, 0 on 3.13).
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t
# RUN: %pyverify check --python-version=3.14 %t/not-redirected.bin | FileCheck %s
# RUN: %pyverify check --python-version=3.14 %t/correct.bin | FileCheck %s
# CHECK: pyverify: 1 file(s), 2 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
import dis
import marshal
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, os.pardir, "python"))
from pyverify_rewriter import rewrite  # noqa: E402


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def op(x):
    return x


def running_example(x):
    with Ctx():
        y = x + 1
        op("graph break")
        y = y + 2
    return y


# the break: the CALL of op("graph break")
ins = list(dis.get_instructions(running_example))
k = next(k for k, i in enumerate(ins) if i.argval == "graph break")
off = next(i.offset for i in ins[k:] if i.opname == "CALL")
for variant, name in (("entries-not-redirected", "not-redirected"),
                      ("correct", "correct")):
    r = rewrite(running_example, off, variant=variant)
    with open(os.path.join(sys.argv[1], name + ".bin"), "wb") as f:
        marshal.dump((r.frame, r.resume), f)
