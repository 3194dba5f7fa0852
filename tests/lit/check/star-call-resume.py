# A graph break inside a star-argument call, `f(*a, g(x))` broken at g's
# CALL (3.12+: BUILD_LIST, LIST_EXTEND, the CALL, LIST_APPEND,
# CALL_INTRINSIC_1 6 (LIST_TO_TUPLE), CALL_FUNCTION_EX): the resume function
# receives the list being built as an argument (___stack2) and appends the
# call's result to it, then makes the tuple of it. TorchDynamo passes the
# stack the same way. The rewritten function runs and returns what eager
# code does; the resume function must check clean. pyverify reported
# "possibly: CALL_INTRINSIC_1 6 takes ... an object of unknown type ...
# where it needs a list" here: the list-to-tuple rule reported an object of
# unknown type where LIST_APPEND's container rule states it as a
# precondition (SlotKinds.def).
#
# REQUIRES: python312, python313
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python312 %s %t/resume312.marshal | FileCheck %s --check-prefix=RUNS
# RUN: %pyverify check --python-version=3.12 %t/resume312.marshal | FileCheck %s
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python313 %s %t/resume313.marshal | FileCheck %s --check-prefix=RUNS
# RUN: %pyverify check --python-version=3.13 %t/resume313.marshal | FileCheck %s
# RUNS: rewritten (1, 2, 6) eager (1, 2, 6)
# CHECK: 0 error(s), 0 warning(s)

import marshal
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
from pyverify_rewriter import break_points, rewrite  # noqa: E402


def f(*args):
    return args


def g(x):
    return x + 1


def h(a, x):
    return f(*a, g(x))


def main(out):
    (bp,) = [b for b in break_points(h) if b.eligible]
    r = rewrite(h, bp.offset)
    print("rewritten", r.make_function()([1, 2], 5), "eager", h([1, 2], 5))
    with open(out, "wb") as fh:
        marshal.dump(r.resume, fh)


if __name__ == "__main__":
    main(sys.argv[1])
