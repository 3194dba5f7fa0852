# handler-depth-exceeds-stack at the stack an instruction leaves when it
# raises, not the depth before or after it. `b + "ab"` (BINARY_OP, depth 2
# before, 1 after) under an entry of depth 1 whose handler returns what its
# stack holds (PUSH_EXC_INFO, POP_TOP, POP_EXCEPT, RETURN_VALUE), called
# with b = 2.5, measured:
#   3.11.7: SIGSEGV -- the error path leaves NULL where the result goes
#     (SET_TOP(NULL)) and unwinding to depth 1 keeps it: the handler returns
#     the NULL;
#   3.12.1, 3.13.0, 3.14.2: returned 2.5 -- the error exit pops both inputs
#     (pop_2_error), unwinding finds depth 0 below the entry's 1 and pushes
#     the exception there, and the handler's RETURN_VALUE reads the slot
#     under the stack: the local b (its reference count taken once more than
#     it holds). In the differential sweep's 3.13 case 17225 of seed 777 the
#     slot under the stack was an unbound local and BEFORE_WITH got NULL:
#     SIGSEGV. pyverify called both clean (the depth after, 1, met the entry).
# LOAD_ATTR of b.nope (depth 1 before and after) under the same entry: 3.11
# keeps the owner on the stack when the lookup raises (fine: the handler
# returns 2.5 from its own stack), 3.12+ pops it first (the same underflow as
# BINARY_OP). The check takes every version's raising instruction as having
# popped its inputs -- sound for all, conservative for 3.11's LOAD_ATTR.
#
# RUN: %mkcode marshal %s %t.b311 --object BINOP311
# RUN: %not --code 1 %pyverify check %t.b311 2>&1 | FileCheck %s --check-prefix=BINOP
# RUN: %mkcode marshal %s %t.b312 --object BINOP312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.b312 2>&1 | FileCheck %s --check-prefix=BINOP
# RUN: %mkcode marshal %s %t.b313 --object BINOP313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.b313 2>&1 | FileCheck %s --check-prefix=BINOP
# RUN: %mkcode marshal %s %t.b314 --object BINOP314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.b314 2>&1 | FileCheck %s --check-prefix=BINOP
# BINOP: error: BINARY_OP 0 is covered by entry {{.*}} whose depth 1 is above the live stack depth 0 here; unwinding would keep slots this instruction already popped [handler-depth-exceeds-stack]
# RUN: %mkcode marshal %s %t.a311 --object ATTR311
# RUN: %not --code 1 %pyverify check %t.a311 2>&1 | FileCheck %s --check-prefix=ATTR
# RUN: %mkcode marshal %s %t.a313 --object ATTR313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.a313 2>&1 | FileCheck %s --check-prefix=ATTR
# ATTR: error: LOAD_ATTR 0 is covered by entry {{.*}} whose depth 1 is above the live stack depth 0 here


def argt(b):
    pass


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    K = (None, "ab")
    N = ("nope",)
    T = argt.__code__
    BINOP311 = code("7c0064017a00000053002300010059005300", "81030502",
                    consts=K, names=N, template=T)
    BINOP312 = BINOP311  # the same bytes in 3.12
    BINOP313 = code("550053012d0000002400210020001f002400", "81030502",
                    consts=K, names=N, template=T)
    BINOP314 = code("540052012c0000000000000000000000230020001f001d002300",
                    "81070902", consts=K, names=N, template=T)
    ATTR311 = code("7c006a00000000000000000053002300010059005300", "81050702",
                   consts=K, names=N, template=T)
    ATTR313 = code("550052000000000000000000000000000000000000002400210020001f"
                   "002400", "810a0c02", consts=K, names=N, template=T)
