# borrow-outlives-local: 3.14's LOAD_FAST_BORROW pushes a local's object
# without a new reference; it is alive only while the local holds it. A
# store to the local (STORE_FAST, the fused stores), DELETE_FAST or
# LOAD_FAST_AND_CLEAR while the borrowed value is still on the stack, with a
# use of the value after, is a use after free (measured on CPython 3.14.2:
# `return (x, (x := y))` with its LOAD_FAST_LOAD_FAST made
# LOAD_FAST_BORROW_LOAD_FAST_BORROW returns a tuple holding the freed object,
# and the interpreter faults when the memory is reused). The 3.14 bytes are
# written by hand (RESUME 0 first) and read with --python-version=3.14;
# f's locals are x (0) and y (1).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import rawcode


def f(x, y):
    pass


def code(body, table="", names=()):
    return rawcode.code(body, table, consts=(None,), stacksize=4, names=names,
                        template=f.__code__)


if __name__ == "mkcode":
    # LOAD_FAST_BORROW x; LOAD_CONST None; STORE_FAST x; RETURN_VALUE.
    STORE = code("8000" "5600" "5200" "7000" "2300")
    # LOAD_FAST_BORROW x; DELETE_FAST x; RETURN_VALUE.
    DELETE = code("8000" "5600" "3f00" "2300")
    # LOAD_FAST_BORROW x; LOAD_CONST None x2; STORE_FAST_STORE_FAST x, y;
    # RETURN_VALUE.
    STORESTORE = code("8000" "5600" "5200" "5200" "7201" "2300")
    # LOAD_FAST_BORROW x; LOAD_CONST None; STORE_FAST_LOAD_FAST x, y;
    # BUILD_TUPLE 2; RETURN_VALUE.
    STORELOAD = code("8000" "5600" "5200" "7101" "3302" "2300")
    # LOAD_FAST_BORROW x; LOAD_FAST_AND_CLEAR x; BUILD_TUPLE 2; RETURN_VALUE.
    CLEAR = code("8000" "5600" "5500" "3302" "2300")
    # LOAD_FAST_BORROW x; LOAD_CONST None; COPY 2; SWAP 3; POP_TOP: the
    # copy, moved under None, is what remains; STORE_FAST x; RETURN_VALUE.
    COPYSWAP = code("8000" "5600" "5200" "3b02" "7503" "1f00" "7000" "2300")
    # The compiler's `return x + y` (LOAD_FAST_BORROW_LOAD_FAST_BORROW x, y;
    # BINARY_OP +) split into two loads, as Dynamo does: still safe.
    SPLIT = code("8000" "5600" "5601" "2c00" + "0000" * 5 + "2300")
    # ... and with a store to x spliced between the two loads.
    SPLITSTORE = code("8000" "5600" "5200" "7000" "5601" "2c00" + "0000" * 5
                      + "2300")
    # x is overwritten on one branch only: LOAD_FAST_BORROW x; LOAD_FAST y;
    # TO_BOOL; POP_JUMP_IF_FALSE 3 (to 24); NOT_TAKEN; LOAD_CONST None;
    # STORE_FAST x; 24 RETURN_VALUE.
    BRANCH = code("8000" "5600" "5401" "2700" + "0000" * 3 + "6403" "0000"
                  "1c00" "5200" "7000" "2300")
    # Only the exception edge carries the freed value: LOAD_FAST_BORROW x;
    # LOAD_CONST None; STORE_FAST x; RAISE_VARARGS 0 (4 to 8 -> 10 [1]);
    # 10 POP_TOP; RETURN_VALUE. Possibly: the handler joins the states
    # before every instruction the entry covers, the store's too.
    HANDLER = code("8000" "5600" "5200" "7000" "6800" "1f00" "2300",
                   "82030502")
    # A borrow stored into another local stays borrowed (STORE_FAST keeps
    # the stack reference): LOAD_FAST_BORROW x; STORE_FAST y; LOAD_CONST
    # None; STORE_FAST x; LOAD_FAST y; RETURN_VALUE (3.14.2 returns the
    # finalized object).
    STORED = code("8000" "5600" "7001" "5200" "7000" "5401" "2300")
    # A method load's self is the borrowed object itself: LOAD_FAST_BORROW
    # x; LOAD_ATTR m (method); LOAD_CONST None; STORE_FAST x; CALL 0 (3.14.2
    # calls m on the finalized object).
    METHOD = code("8000" "5600" "5001" + "0000" * 9 + "5200" "7000" "3400"
                  + "0000" * 3 + "2300", names=("m",))
    # The compiler's own borrow: LOAD_FAST_BORROW x; RETURN_VALUE; and a
    # store after the borrow is consumed: LOAD_FAST_BORROW x; POP_TOP;
    # LOAD_CONST None; STORE_FAST x; LOAD_CONST None; RETURN_VALUE.
    CLEAN = code("8000" "5600" "1f00" "5200" "7000" "5200" "2300")

# RUN: %mkcode marshal %s %t.store --object STORE
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.store | FileCheck %s --check-prefix=STORE
# STORE:      error: 6 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it (without a reference) is still on the stack, and 8 RETURN_VALUE takes that value after: the object may have been freed (use after free); load 'x' with LOAD_FAST, or consume the borrow before the store [borrow-outlives-local]
# STORE:      note: 'x' borrowed here (offset 2)
# STORE-NEXT: note: the borrowed value used here, after the store (offset 8)

# RUN: %mkcode marshal %s %t.delete --object DELETE
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.delete | FileCheck %s --check-prefix=DELETE
# DELETE: error: 4 DELETE_FAST deletes local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it (without a reference) is still on the stack, and 6 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.storestore --object STORESTORE
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.storestore | FileCheck %s --check-prefix=STORESTORE
# STORESTORE: error: 8 STORE_FAST_STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 10 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.storeload --object STORELOAD
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.storeload | FileCheck %s --check-prefix=STORELOAD
# STORELOAD: error: 6 STORE_FAST_LOAD_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 8 BUILD_TUPLE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.clear --object CLEAR
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.clear | FileCheck %s --check-prefix=CLEAR
# CLEAR: error: 4 LOAD_FAST_AND_CLEAR clears local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 6 BUILD_TUPLE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.copyswap --object COPYSWAP
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.copyswap | FileCheck %s --check-prefix=COPYSWAP
# COPYSWAP: error: 12 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 14 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]
# COPYSWAP-NOT: 10 POP_TOP takes

# RUN: %mkcode marshal %s %t.split --object SPLIT
# RUN: %pyverify check --python-version=3.14 %t.split | FileCheck %s --check-prefix=CLEAN
# CLEAN: 0 error(s), 0 warning(s)

# RUN: %mkcode marshal %s %t.splitstore --object SPLITSTORE
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.splitstore | FileCheck %s --check-prefix=SPLITSTORE
# SPLITSTORE: error: 6 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 10 BINARY_OP takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.branch --object BRANCH
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.branch | FileCheck %s --check-prefix=BRANCH
# BRANCH: error: possibly: 22 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 24 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.handler --object HANDLER
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.handler | FileCheck %s --check-prefix=HANDLER
# HANDLER: error: possibly: 6 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 12 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.stored --object STORED
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.stored | FileCheck %s --check-prefix=STORED
# STORED: error: 8 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 12 RETURN_VALUE takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.method --object METHOD
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.method | FileCheck %s --check-prefix=METHOD
# METHOD: error: possibly: 26 STORE_FAST overwrites local 'x' while the value 2 LOAD_FAST_BORROW borrowed from it {{.*}} and 28 CALL takes that value after: {{.*}} [borrow-outlives-local]

# RUN: %mkcode marshal %s %t.clean --object CLEAN
# RUN: %pyverify check --python-version=3.14 %t.clean | FileCheck %s --check-prefix=CLEAN
