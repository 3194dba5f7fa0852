# RERAISE of something that is not an exception (exception-slot-type).
#
# A handler doing PUSH_EXC_INFO; SWAP 2; RERAISE 0 re-raises the exception
# state PUSH_EXC_INFO saved (None outside a handler) instead of the raised
# exception. CPython does not check RERAISE's operand. Measured (code built
# with CodeType.replace, run in a subprocess; then a caught raise and a bare
# raise):
#   3.11: RERAISE of None, True, 1, a function, a handler's lasti: SIGSEGV
#         (PyExceptionInstance_Class / PyException_GetTraceback of a
#         non-exception);
#   3.12, 3.13: RERAISE of a lasti int: SIGSEGV; of None, True, 1: the
#         traceback field read from the non-exception fails in
#         Python/traceback.c:50 ("bad argument to internal function"), and
#         with the saved None the caller's next handler then fails too.
# Only the raised exception is safe (control: PUSH_EXC_INFO; RERAISE 0).
#
# 3.11 (the code: None + 1 raises; the handler re-raises the saved None):
# RUN: %mkcode marshal %s %t.311 --object BAD311
# RUN: %not --code 1 %pyverify check %t.311 2>&1 | FileCheck %s --check-prefix=BAD311
# BAD311: error: possibly: 16 RERAISE 0 takes the value on top of the stack, which is the exception state PUSH_EXC_INFO at 12 saved (None unless an exception is being handled), where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
# RUN: %mkcode marshal %s %t.311ok --object GOOD311
# RUN: %pyverify check %t.311ok | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)
#
# 3.12 and 3.13 (LOAD_ASSERTION_ERROR; RAISE_VARARGS 1 with a lasti entry;
# the handler PUSH_EXC_INFO; SWAP 2; RERAISE 0; bytes from an assembler run
# under each interpreter):
# RUN: %mkcode marshal %s %t.312 --object BAD312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.312 2>&1 | FileCheck %s --check-prefix=BAD312
# BAD312: error: possibly: 10 RERAISE 0 takes the value on top of the stack, which is the exception state PUSH_EXC_INFO at 6 saved (None unless an exception is being handled), where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
# RUN: %mkcode marshal %s %t.312ok --object GOOD312
# RUN: %pyverify check --python-version=3.12 %t.312ok | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.313 --object BAD313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.313 2>&1 | FileCheck %s --check-prefix=BAD313
# BAD313: error: possibly: 10 RERAISE 0 takes the value on top of the stack, which is the exception state PUSH_EXC_INFO at 6 saved (None unless an exception is being handled), where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
# RUN: %mkcode marshal %s %t.313ok --object GOOD313
# RUN: %pyverify check --python-version=3.13 %t.313ok | FileCheck %s --check-prefix=GOOD
#
# A handler's lasti (an int) re-raised: PUSH_EXC_INFO; POP_TOP; SWAP 2; RERAISE 0.
# RUN: %mkcode marshal %s %t.lasti --object LASTI311
# RUN: %not --code 1 %pyverify check %t.lasti 2>&1 | FileCheck %s --check-prefix=LASTI
# LASTI: error: 12 RERAISE 0 takes the value on top of the stack, which is the lasti int of a handler entry, where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
#
# A parameter re-raised (RESUME; LOAD_FAST e; RERAISE 0): its type is not
# known, so possibly not an exception (f(None) crashes as above).
# RUN: %mkcode marshal %s %t.param --object PARAM
# RUN: %not --code 1 %pyverify check %t.param 2>&1 | FileCheck %s --check-prefix=PARAM
# PARAM: error: possibly: 4 RERAISE 0 takes the value on top of the stack, which is an object of unknown type (pushed by LOAD_FAST at 2), where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]


def reraiser(e):
    pass


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    BAD311 = code("9700640064017a0000005300230063027700780359007701",
                  "8105060086030903", consts=(None, 1), stacksize=4)
    GOOD311 = code("97004a00820123007700780359007701", "8102030183020505")
    PARAM = reraiser.__code__.replace(co_code=bytes.fromhex("97007c007700"),
                                      co_linetable=bytes([0x80 | (15 << 3) | 2]))
    LASTI311 = code("97004a0082012300010063027700780359007701",
                    "8102030183040705")
    BAD312 = code("97004a008201230063027700780359007701", "8102030183030605")
    GOOD312 = GOOD311  # the same opcode numbers in 3.12
    BAD313 = code("9500170065012100730266003d031f006601", "8102030183030605")
    GOOD313 = code("950017006501210066003d031f006601", "8102030183020505")
