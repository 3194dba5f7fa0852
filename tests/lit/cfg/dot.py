# pyverify cfg --dot: one Graphviz digraph per code object; exception edges
# are dashed and red and labelled like the text form; unreachable blocks
# are gray.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg --dot %t.pyc | FileCheck %s

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# CHECK-LABEL: digraph "g" {
# CHECK-NEXT:    node [shape=box, fontname=monospace];
# CHECK-NEXT:    B0 [label="B0\l0 RESUME 0\l2 NOP\l"];
# The try body is one block although both instructions may raise.
# CHECK-NEXT:    B1 [label="B1\l4 LOAD_FAST 0 (x)\l6 LOAD_ATTR 0 (y)\l"];
# CHECK-NEXT:    B2 [label="B2\l16 RETURN_VALUE\l"];
# CHECK-NEXT:    B3 [label="B3\l18 PUSH_EXC_INFO\l20 LOAD_GLOBAL 2 (AttributeError)\l32 CHECK_EXC_MATCH\l34 POP_JUMP_FORWARD_IF_FALSE 4 (to 44)\l"];
# CHECK:         B7 [label="B7\l46 COPY 3\l48 POP_EXCEPT\l50 RERAISE 1\l"];
# CHECK-NEXT:    B0 -> B1;
# CHECK-NEXT:    B1 -> B2;
# CHECK-NEXT:    B1 -> B3 [style=dashed, color=red, label="exc [0]"];
# CHECK-NEXT:    B3 -> B6 [label="taken"];
# CHECK-NEXT:    B3 -> B4 [label="not taken"];
# CHECK-NEXT:    B3 -> B7 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK-NEXT:    B4 -> B5;
# CHECK-NEXT:    B4 -> B7 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# CHECK-NEXT:    B6 -> B7 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK-NEXT:  }

# A dead handler (CPython keeps the except clause of a body that cannot
# raise) is drawn gray.
def const():
    try:
        return 1
    except ValueError:
        return 2

# CHECK-LABEL: digraph "const" {
# CHECK:         B1 [label="B1\l8 PUSH_EXC_INFO\l10 LOAD_GLOBAL 0 (ValueError)\l22 CHECK_EXC_MATCH\l24 POP_JUMP_FORWARD_IF_FALSE 4 (to 34)\l", color=gray];

# A with statement around a try/except: one block per straight-line
# region. Blocks end only at jumps and terminators, at jump and handler
# targets and where the exception table's cover changes: the try body
# (10 to 48, four instructions that may raise) is one block with one
# exception edge, as is the __exit__(None, None, None) path at 84.
def wt(cm, x):
    with cm:
        try:
            x.a()
        except KeyError:
            pass

# Table: 6 to 6 -> 110 [1] lasti, 10 to 48 -> 52 [1], 50 to 50 -> 110 [1]
# lasti, 52 to 70 -> 78 [2] lasti, 72 to 74 -> 110 [1] lasti, 76 to 76 ->
# 78 [2] lasti, 78 to 82 -> 110 [1] lasti, 110 to 116 -> 118 [3] lasti,
# 124 to 124 -> 118 [3] lasti.

# CHECK-LABEL: digraph "wt" {
# CHECK-NEXT:    node [shape=box, fontname=monospace];
# CHECK-NEXT:    B0 [label="B0\l0 RESUME 0\l2 LOAD_FAST 0 (cm)\l4 BEFORE_WITH\l"];
# CHECK-NEXT:    B1 [label="B1\l6 POP_TOP\l"];
# CHECK-NEXT:    B2 [label="B2\l8 NOP\l"];
# CHECK-NEXT:    B3 [label="B3\l10 LOAD_FAST 1 (x)\l12 LOAD_METHOD 0 (a)\l34 PRECALL 0\l38 CALL 0\l48 POP_TOP\l"];
# CHECK-NEXT:    B4 [label="B4\l50 JUMP_FORWARD 16 (to 84)\l"];
# CHECK-NEXT:    B5 [label="B5\l52 PUSH_EXC_INFO\l54 LOAD_GLOBAL 2 (KeyError)\l66 CHECK_EXC_MATCH\l68 POP_JUMP_FORWARD_IF_FALSE 3 (to 76)\l"];
# CHECK-NEXT:    B6 [label="B6\l70 POP_TOP\l"];
# CHECK-NEXT:    B7 [label="B7\l72 POP_EXCEPT\l74 JUMP_FORWARD 4 (to 84)\l"];
# CHECK-NEXT:    B8 [label="B8\l76 RERAISE 0\l"];
# CHECK-NEXT:    B9 [label="B9\l78 COPY 3\l80 POP_EXCEPT\l82 RERAISE 1\l"];
# CHECK-NEXT:    B10 [label="B10\l84 LOAD_CONST 0 (None)\l86 LOAD_CONST 0 (None)\l88 LOAD_CONST 0 (None)\l90 PRECALL 2\l94 CALL 2\l104 POP_TOP\l106 LOAD_CONST 0 (None)\l108 RETURN_VALUE\l"];
# CHECK-NEXT:    B11 [label="B11\l110 PUSH_EXC_INFO\l112 WITH_EXCEPT_START\l114 POP_JUMP_FORWARD_IF_TRUE 4 (to 124)\l"];
# CHECK-NEXT:    B12 [label="B12\l116 RERAISE 2\l"];
# CHECK-NEXT:    B13 [label="B13\l118 COPY 3\l120 POP_EXCEPT\l122 RERAISE 1\l"];
# CHECK-NEXT:    B14 [label="B14\l124 POP_TOP\l"];
# CHECK-NEXT:    B15 [label="B15\l126 POP_EXCEPT\l128 POP_TOP\l130 POP_TOP\l132 LOAD_CONST 0 (None)\l134 RETURN_VALUE\l"];
# CHECK-NEXT:    B0 -> B1;
# CHECK-NEXT:    B1 -> B2;
# CHECK-NEXT:    B1 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# CHECK-NEXT:    B2 -> B3;
# CHECK-NEXT:    B3 -> B4;
# CHECK-NEXT:    B3 -> B5 [style=dashed, color=red, label="exc [1]"];
# CHECK-NEXT:    B4 -> B10 [label="jump"];
# CHECK-NEXT:    B4 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# CHECK-NEXT:    B5 -> B8 [label="taken"];
# CHECK-NEXT:    B5 -> B6 [label="not taken"];
# CHECK-NEXT:    B5 -> B9 [style=dashed, color=red, label="exc [2] lasti"];
# CHECK-NEXT:    B6 -> B7;
# CHECK-NEXT:    B6 -> B9 [style=dashed, color=red, label="exc [2] lasti no-raise"];
# CHECK-NEXT:    B7 -> B10 [label="jump"];
# CHECK-NEXT:    B7 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# CHECK-NEXT:    B8 -> B9 [style=dashed, color=red, label="exc [2] lasti"];
# CHECK-NEXT:    B9 -> B11 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK-NEXT:    B11 -> B14 [label="taken"];
# CHECK-NEXT:    B11 -> B12 [label="not taken"];
# CHECK-NEXT:    B11 -> B13 [style=dashed, color=red, label="exc [3] lasti"];
# CHECK-NEXT:    B12 -> B13 [style=dashed, color=red, label="exc [3] lasti"];
# CHECK-NEXT:    B14 -> B15;
# CHECK-NEXT:    B14 -> B13 [style=dashed, color=red, label="exc [3] lasti no-raise"];
# CHECK-NEXT:  }
