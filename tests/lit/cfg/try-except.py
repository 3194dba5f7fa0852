# pyverify cfg: basic blocks ([start, end) in bytes) and their edges. A
# block is a straight-line region: it ends only at a jump, a terminator, a
# jump target, a handler or an exception-table boundary -- not at every
# instruction that may raise. A block covered by an entry gets one
# exception edge to the entry's handler, labelled with the entry's [depth]
# and lasti; "no-raise" marks an edge from a block none of whose
# instructions can raise (kept, as CPython's compiler keeps it when sizing
# the frame).
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg %t.pyc | FileCheck %s

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# g: 0 RESUME; 2 NOP; 4 LOAD_FAST x; 6 LOAD_ATTR y; 16 RETURN_VALUE;
#    18 PUSH_EXC_INFO; 20 LOAD_GLOBAL AttributeError; 32 CHECK_EXC_MATCH;
#    34 POP_JUMP_FORWARD_IF_FALSE (to 44); 36 POP_TOP; 38 POP_EXCEPT;
#    40 LOAD_CONST None; 42 RETURN_VALUE; 44 RERAISE 0; 46 COPY 3;
#    48 POP_EXCEPT; 50 RERAISE 1.
# Table: 4 to 14 -> 18 [0], 18 to 36 -> 46 [1] lasti, 44 to 44 -> 46 [1]
# lasti.

# CHECK-LABEL: CFG of g (8 blocks)
# The `try:` NOP is outside every entry.
# CHECK-NEXT:    B0 [0, 4)
# CHECK-NEXT:      -> B1 fallthrough
# The try body is one block, though LOAD_FAST and LOAD_ATTR may both raise.
# CHECK-NEXT:    B1 [4, 16)
# CHECK-NEXT:      -> B2 fallthrough
# CHECK-NEXT:      -> B3 exception [0]
# RETURN_VALUE is past the entry's end: no edges at all.
# CHECK-NEXT:    B2 [16, 18)
# The except clause up to its test, under the cleanup entry.
# CHECK-NEXT:    B3 [18, 36)
# CHECK-NEXT:      -> B6 taken
# CHECK-NEXT:      -> B4 not-taken
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B4 [36, 38)
# CHECK-NEXT:      -> B5 fallthrough
# CHECK-NEXT:      -> B7 exception [1] lasti no-raise
# CHECK-NEXT:    B5 [38, 44)
# CHECK-NEXT:    B6 [44, 46)
# CHECK-NEXT:      -> B7 exception [1] lasti
# CHECK-NEXT:    B7 [46, 52)
# CHECK-EMPTY:

import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

if __name__ == "mkcode":
    # Without the try body's entry the except clause is unreachable, and
    # says so.
    # RUN: %mkcode marshal %s %t.dead --object DEAD
    # RUN: %pyverify cfg %t.dead | FileCheck %s --check-prefix=DEAD
    DEAD = bc.drop_entry(g.__code__, 0)
    # DEAD:      CFG of g (6 blocks)
    # DEAD-NEXT:   B0 [0, 18)
    # DEAD-NEXT:   B1 [18, 36) unreachable
    # DEAD-NEXT:     -> B4 taken
    # DEAD-NEXT:     -> B2 not-taken
    # DEAD-NEXT:     -> B5 exception [1] lasti

    # Code that is not well-formed has no CFG: a warning on stderr, exit 0,
    # and a partial graph -- the instructions in blocks, the fall-through
    # and jump edges the code can be trusted for, no exception edges -- with
    # the finding on the block it is about.
    # RUN: %mkcode marshal %s %t.bad --object BAD
    # RUN: %pyverify cfg %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
    BAD = bc.set_entry(g.__code__, 0, target=100)
    # BAD:      warning: {{.*}}.bad: g: not well-formed; partial graph without exception edges (run 'pyverify check')
    # BAD-NEXT: CFG of g (5 blocks, partial: not well-formed, no exception edges)
    # BAD-NEXT:   B0 [0, 18)
    # BAD-NEXT:     ! error at 4: exception-table entry '4 to 14 -> 100 [0]' (table byte 0) has handler target 100 outside the code (52 bytes) [exception-table-target-not-instruction]
    # BAD-NEXT:   B1 [18, 36)
    # BAD-NEXT:     -> B3 taken
    # BAD-NEXT:     -> B2 not-taken
    # BAD-NEXT:   B2 [36, 44)
    # BAD-NEXT:   B3 [44, 46)
    # BAD-NEXT:   B4 [46, 52)
    # BAD-NOT:    {{.}}
