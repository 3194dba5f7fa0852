# POP_EXCEPT of something that is neither an exception nor None
# (exception-slot-type).
#
# try: raise ... except: pass, whose handler's POP_TOP (of the exception)
# became IS_OP: IS_OP pops the exception and the state PUSH_EXC_INFO saved
# and pushes a bool, which POP_EXCEPT makes the thread's handled exception.
# Measured (code built with CodeType.replace, run in a subprocess, then
# "try: raise KeyError / except KeyError: sys.exc_info()" and a bare raise):
#   POP_EXCEPT of True, 1 or a function: 3.11, 3.12, 3.13 SIGSEGV at the
#   next raise (its context is chained to the bool); of None: safe (no
#   exception); this test's IS_OP handler: 3.11 SIGSEGV, 3.12/3.13 the bare
#   raise reads the bool's "traceback" (SystemError from
#   Python/traceback.c:50). The control keeps the POP_TOP.
#
# RUN: %mkcode marshal %s %t.311 --object BAD311
# RUN: %not --code 1 %pyverify check %t.311 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: error: 10 POP_EXCEPT takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by IS_OP at 8), where it needs an exception or None: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
# RUN: %mkcode marshal %s %t.311ok --object GOOD311
# RUN: %pyverify check %t.311ok | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)
# RUN: %mkcode marshal %s %t.312 --object BAD312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.312 2>&1 | FileCheck %s --check-prefix=BAD
# RUN: %pyverify check --python-version=3.12 %t.311ok | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.313 --object BAD313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.313 2>&1 | FileCheck %s --check-prefix=BAD
# RUN: %mkcode marshal %s %t.313ok --object GOOD313
# RUN: %pyverify check --python-version=3.13 %t.313ok | FileCheck %s --check-prefix=GOOD

if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    # RESUME; LOAD_ASSERTION_ERROR; RAISE_VARARGS 1 -> handler: PUSH_EXC_INFO;
    # IS_OP 0 (POP_TOP in the control); POP_EXCEPT; LOAD_CONST None;
    # RETURN_VALUE; cleanup COPY 3; POP_EXCEPT; RERAISE 1.
    BAD311 = code("97004a00820123007500590064005300780359007701", "8102030083020803")
    GOOD311 = code("97004a00820123000100590064005300780359007701", "8102030083020803")
    BAD312 = BAD311  # the same opcode numbers in 3.12
    BAD313 = code("95001700650121004c001f00530024003d031f006601", "8102030083020803")
    GOOD313 = code("950017006501210020001f00530024003d031f006601", "8102030083020803")
