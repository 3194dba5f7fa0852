# call-without-null: a call whose NULL was never pushed (PUSH_NULL turned
# into NOP, LOAD_GLOBAL's NULL bit cleared) takes the value below its
# callable -- a value of the enclosing expression -- as the callable and the
# callable as self: CPython 3.11, 3.12 and 3.13 all call the deeper of the
# two slots below the arguments with the other as its first argument when
# neither is NULL (measured: `y + h(x)` without its PUSH_NULL calls y(h, x),
# TypeError "'object' object is not callable"; with a callable y the call
# returns and BINARY_OP then reads below the stack: the local x). The stack
# is one value short after the call; the first instruction that needs that
# value underflows. Before, only that underflow was reported (at BINARY_OP);
# now the call is, first, with the value it took and where it came from, and
# the underflow names the call.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc
import rawcode


def f(y, h, x):
    return y + h(x)


def k(y, x):
    return y + g(x)


def bal(h, y, x):
    return h(y, x)


if __name__ == "mkcode":
    # 3.11: f is RESUME; LOAD_FAST y; PUSH_NULL; LOAD_FAST h; LOAD_FAST x;
    # PRECALL 1; CALL 1; BINARY_OP +; RETURN_VALUE.
    PUSHNULL = bc.patch(f.__code__, bc.offset_of(f.__code__, "PUSH_NULL"), "NOP")
    # k's LOAD_GLOBAL 1 (NULL + g) made LOAD_GLOBAL 0 (g).
    GLOBALBIT = bc.patch(k.__code__, bc.offset_of(k.__code__, "LOAD_GLOBAL"),
                         arg=0)
    # A non-NULL self slot that keeps the stack balanced: h's PUSH_NULL made
    # NOP and CALL 2 made CALL 1 -- CPython calls h(y, x), as its own with
    # statements' exit call `LOAD_CONST None x3; CALL 2` calls the bound
    # __exit__ below them. Valid: no finding.
    b = bc.patch(bal.__code__, bc.offset_of(bal.__code__, "PUSH_NULL"), "NOP")
    b = bc.patch(b, bc.offset_of(b, "PRECALL"), arg=1)
    BALANCED = bc.patch(b, bc.offset_of(b, "CALL"), arg=1)
    # 3.12 and 3.13 bytes of f and k, broken the same way (printed by each
    # interpreter), read with --python-version.
    F312 = rawcode.code("97007c0009007c017c02ab010000000000007a0000005300", "",
                        stacksize=4, template=f.__code__)
    K312 = rawcode.code("97007c00740000000000000000007c01ab010000000000007a00"
                        "00005300", "", stacksize=4, names=("g",),
                        template=k.__code__)
    F313 = rawcode.code("950058011e00550235010000000000002d0000002400", "",
                        stacksize=4, template=f.__code__)
    K313 = rawcode.code("950055005b000000000000000000550135010000000000002d00"
                        "00002400", "", stacksize=4, names=("g",),
                        template=k.__code__)

# RUN: %mkcode marshal %s %t.pushnull --object PUSHNULL
# RUN: %not --code 1 %pyverify check %t.pushnull | FileCheck %s --check-prefix=PUSHNULL
# PUSHNULL:      error: 14 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_FAST 1 (offset 6) was pushed without one, so CALL calls the value below it, LOAD_FAST 0 (offset 2), with the callable as its first argument; the call takes one value more than the code pushed for it, and 24 BINARY_OP 0, which takes the call's result, finds the stack one value short [call-without-null]
# PUSHNULL-NEXT:   in f (line 19) at offset 14: CALL 1
# PUSHNULL-NEXT: note: the value taken as the callable: a value of the enclosing expression (offset 2)
# PUSHNULL-NEXT: note: the callable, pushed with no NULL before it (offset 6)
# PUSHNULL-NEXT: note: the underflow this causes (offset 24)
# PUSHNULL:      error: BINARY_OP 0 needs 2 stack value(s) but only 1 are on the stack [stack-underflow]
# PUSHNULL:      note: caused by 14 CALL 1, which took a value of the enclosing expression as its callable (call-without-null) (offset 14)

# RUN: %mkcode marshal %s %t.globalbit --object GLOBALBIT
# RUN: %not --code 1 %pyverify check %t.globalbit | FileCheck %s --check-prefix=GLOBALBIT
# GLOBALBIT: error: 22 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_GLOBAL 0 (offset 4) was pushed without one, so CALL calls the value below it, LOAD_FAST 0 (offset 2), {{.*}} [call-without-null]
# GLOBALBIT: [stack-underflow]

# RUN: %mkcode marshal %s %t.balanced --object BALANCED
# RUN: %pyverify check %t.balanced | FileCheck %s --check-prefix=BALANCED
# BALANCED: 0 error(s), 0 warning(s)

# RUN: %mkcode marshal %s %t.f312 --object F312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.f312 | FileCheck %s --check-prefix=F312
# F312: error: 10 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_FAST 1 (offset 6) was pushed without one, so CALL calls the value below it, LOAD_FAST 0 (offset 2), {{.*}} [call-without-null]
# RUN: %mkcode marshal %s %t.k312 --object K312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.k312 | FileCheck %s --check-prefix=K312
# K312: error: 16 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_GLOBAL 0 (offset 4) {{.*}} [call-without-null]
# RUN: %mkcode marshal %s %t.f313 --object F313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.f313 | FileCheck %s --check-prefix=F313
# F313: error: 8 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_FAST_LOAD_FAST 1 (offset 2) was pushed without one, so CALL calls the value below it, LOAD_FAST_LOAD_FAST 1 (offset 2), {{.*}} [call-without-null]
# RUN: %mkcode marshal %s %t.k313 --object K313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.k313 | FileCheck %s --check-prefix=K313
# K313: error: 16 CALL 1 finds no NULL below its 1 argument(s): the callable LOAD_GLOBAL 0 (offset 4) was pushed without one, so CALL calls the value below it, LOAD_FAST 0 (offset 2), {{.*}} [call-without-null]
