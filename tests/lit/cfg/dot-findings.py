# pyverify cfg --dot on code a rewriter emitted: long arguments are cut with
# an ellipsis instead of dropped; the findings of the default checks are on
# the graph (the block drawn red, the check id on the row, the messages as
# the node's tooltip); code that is not well-formed gets a partial graph
# instead of none.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def call(x):
    return __compiled_fn_7_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6(x)

# An argument of more than 40 characters: its first 39 and an ellipsis.
# Before, the row was "LOAD_GLOBAL 1" with no name.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg --dot --function=call %t.pyc | FileCheck %s --check-prefix=LONG
# LONG-LABEL: digraph "call" {
# LONG:       B0 [label="B0 entry\l10   0 RESUME 0\l11   2 LOAD_GLOBAL 1 (NULL + __compiled_fn_7_a1b2c3d4e5f6a7b8…)\l

def k(x):
    return x + 1

if __name__ == "mkcode":
    # co_stacksize 1 for a code object that needs 2: the error is on the
    # row of LOAD_CONST 1, its block red with the message as tooltip.
    # RUN: %mkcode marshal %s %t.small --object SMALL
    # RUN: %pyverify cfg --dot %t.small | FileCheck %s --check-prefix=FINDING
    SMALL = bc.set_stacksize(k.__code__, 1)
    # FINDING:      digraph "k" {
    # FINDING-NEXT:   node [shape=box, fontname=monospace];
    # FINDING-NEXT:   B0 [label="B0 entry\l20  0 RESUME 0\l21  2 LOAD_FAST 0 (x)\l    4 LOAD_CONST 1 (1)  ! error [stacksize-too-small]\l    6 BINARY_OP 0 (+)\l   10 RETURN_VALUE\l", peripheries=2, color=red, penwidth=2, tooltip="error at 4: the stack reaches depth 2 at LOAD_CONST 1 but co_stacksize is 1; the frame is too small and the interpreter will write past it (co_stacksize must be at least 2) [stacksize-too-small]"];
    # FINDING-NEXT: }

    # A jump into the inline cache of BINARY_OP: no CFG.
    # The partial graph says so, keeps the instructions and the fall-through
    # edges, and draws no edge for the bad jump.
    # RUN: %mkcode marshal %s %t.jump --object JUMP
    # RUN: %pyverify cfg --dot %t.jump 2> %t.jump.err | FileCheck %s --check-prefix=PARTIAL
    # RUN: FileCheck %s --check-prefix=PARTIAL-ERR < %t.jump.err
    JUMP = bc.replace_bytes(k.__code__, 2,
                            bytes([bc.op("JUMP_FORWARD"), 2]))
    # PARTIAL:      digraph "k" {
    # PARTIAL-NEXT:   label="partial graph: k is not well-formed; edges only where the code can be trusted, no exception edges";
    # PARTIAL-NEXT:   labelloc=t;
    # PARTIAL-NEXT:   node [shape=box, fontname=monospace];
    # PARTIAL-NEXT:   B0 [label="B0 entry\l20  0 RESUME 0\l21  2 JUMP_FORWARD 2 (to 8)  ! error [jump-target-invalid]\l", peripheries=2, color=red, penwidth=2, tooltip="error at 2: {{.*}}[jump-target-invalid]"];
    # PARTIAL-NEXT:   B1 [label="B1\l21  4 LOAD_CONST 1 (1)\l    6 BINARY_OP 0 (+)\l   10 RETURN_VALUE\l"];
    # PARTIAL-NEXT: }
    # PARTIAL-ERR: warning: {{.*}}.jump: k: not well-formed; partial graph without exception edges (run 'pyverify check')
