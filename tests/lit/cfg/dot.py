# cfg --dot --function=NAME: one code object's digraph (dot-function.py: several). Exception
# edges are dashed, red, labelled like the text form; unreachable blocks gray; the entry block
# double, labelled "entry"; handler blocks rounded, labelled with depth and lasti; each row
# starts with the source line where it changes (always on a block's first row), then the offset.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg --dot --function=g %t.pyc | FileCheck %s --check-prefix=G
# RUN: %pyverify cfg --dot --function=const %t.pyc | FileCheck %s --check-prefix=CONST
# RUN: %pyverify cfg --dot --function=wt %t.pyc | FileCheck %s --check-prefix=WT

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# G: digraph "g" {
# G-NEXT:    node [shape=box, fontname=monospace];
# G-NEXT:    B0 [label="B0 entry\l10   0 RESUME 0\l11   2 NOP\l", peripheries=2];
# The try body is one block although both instructions may raise.
# G-NEXT:    B1 [label="B1\l12   4 LOAD_FAST 0 (x)\l     6 LOAD_ATTR 0 (y)\l"];
# G-NEXT:    B2 [label="B2\l12  16 RETURN_VALUE\l"];
# G-NEXT:    B3 [label="B3 handler [0]\l    18 PUSH_EXC_INFO\l13  20 LOAD_GLOBAL 2 (AttributeError)\l    32 CHECK_EXC_MATCH\l    34 POP_JUMP_FORWARD_IF_FALSE 4 (to 44)\l", style=rounded];
# G:         B7 [label="B7 handler [1] lasti\l    46 COPY 3\l    48 POP_EXCEPT\l    50 RERAISE 1\l", style=rounded];
# G-NEXT:    B0 -> B1;
# G-NEXT:    B1 -> B2;
# G-NEXT:    B1 -> B3 [style=dashed, color=red, label="exc [0]"];
# G-NEXT:    B3 -> B6 [label="taken"];
# G-NEXT:    B3 -> B4 [label="not taken"];
# G-NEXT:    B3 -> B7 [style=dashed, color=red, label="exc [1] lasti"];
# G-NEXT:    B4 -> B5;
# G-NEXT:    B4 -> B7 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# G-NEXT:    B6 -> B7 [style=dashed, color=red, label="exc [1] lasti"];
# G-NEXT:  }

# A dead handler (CPython keeps the except clause of a body that cannot
# raise) is drawn gray.
def const():
    try:
        return 1
    except ValueError:
        return 2

# CONST: digraph "const" {
# CONST:         B1 [label="B1 unreachable\l     8 PUSH_EXC_INFO\l40  10 LOAD_GLOBAL 0 (ValueError)\l    22 CHECK_EXC_MATCH\l    24 POP_JUMP_FORWARD_IF_FALSE 4 (to 34)\l", color=gray];

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

# WT: digraph "wt" {
# WT-NEXT:    node [shape=box, fontname=monospace];
# WT-NEXT:    B0 [label="B0 entry\l51    0 RESUME 0\l52    2 LOAD_FAST 0 (cm)\l      4 BEFORE_WITH\l", peripheries=2];
# WT-NEXT:    B1 [label="B1\l52    6 POP_TOP\l"];
# WT-NEXT:    B2 [label="B2\l53    8 NOP\l"];
# WT-NEXT:    B3 [label="B3\l54   10 LOAD_FAST 1 (x)\l     12 LOAD_METHOD 0 (a)\l     34 PRECALL 0\l     38 CALL 0\l     48 POP_TOP\l"];
# WT-NEXT:    B4 [label="B4\l54   50 JUMP_FORWARD 16 (to 84)\l"];
# WT-NEXT:    B5 [label="B5 handler [1]\l     52 PUSH_EXC_INFO\l55   54 LOAD_GLOBAL 2 (KeyError)\l     66 CHECK_EXC_MATCH\l     68 POP_JUMP_FORWARD_IF_FALSE 3 (to 76)\l", style=rounded];
# WT-NEXT:    B6 [label="B6\l55   70 POP_TOP\l"];
# WT-NEXT:    B7 [label="B7\l56   72 POP_EXCEPT\l     74 JUMP_FORWARD 4 (to 84)\l"];
# WT-NEXT:    B8 [label="B8\l55   76 RERAISE 0\l"];
# WT-NEXT:    B9 [label="B9 handler [2] lasti\l     78 COPY 3\l     80 POP_EXCEPT\l     82 RERAISE 1\l", style=rounded];
# WT-NEXT:    B10 [label="B10\l52   84 LOAD_CONST 0 (None)\l     86 LOAD_CONST 0 (None)\l     88 LOAD_CONST 0 (None)\l     90 PRECALL 2\l     94 CALL 2\l    104 POP_TOP\l    106 LOAD_CONST 0 (None)\l    108 RETURN_VALUE\l"];
# WT-NEXT:    B11 [label="B11 handler [1] lasti\l52  110 PUSH_EXC_INFO\l    112 WITH_EXCEPT_START\l    114 POP_JUMP_FORWARD_IF_TRUE 4 (to 124)\l", style=rounded];
# WT-NEXT:    B12 [label="B12\l52  116 RERAISE 2\l"];
# WT-NEXT:    B13 [label="B13 handler [3] lasti\l    118 COPY 3\l    120 POP_EXCEPT\l    122 RERAISE 1\l", style=rounded];
# WT-NEXT:    B14 [label="B14\l52  124 POP_TOP\l"];
# WT-NEXT:    B15 [label="B15\l52  126 POP_EXCEPT\l    128 POP_TOP\l    130 POP_TOP\l    132 LOAD_CONST 0 (None)\l    134 RETURN_VALUE\l"];
# WT-NEXT:    B0 -> B1;
# WT-NEXT:    B1 -> B2;
# WT-NEXT:    B1 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# WT-NEXT:    B2 -> B3;
# WT-NEXT:    B3 -> B4;
# WT-NEXT:    B3 -> B5 [style=dashed, color=red, label="exc [1]"];
# WT-NEXT:    B4 -> B10 [label="jump"];
# WT-NEXT:    B4 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# WT-NEXT:    B5 -> B8 [label="taken"];
# WT-NEXT:    B5 -> B6 [label="not taken"];
# WT-NEXT:    B5 -> B9 [style=dashed, color=red, label="exc [2] lasti"];
# WT-NEXT:    B6 -> B7;
# WT-NEXT:    B6 -> B9 [style=dashed, color=red, label="exc [2] lasti no-raise"];
# WT-NEXT:    B7 -> B10 [label="jump"];
# WT-NEXT:    B7 -> B11 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# WT-NEXT:    B8 -> B9 [style=dashed, color=red, label="exc [2] lasti"];
# WT-NEXT:    B9 -> B11 [style=dashed, color=red, label="exc [1] lasti"];
# WT-NEXT:    B11 -> B14 [label="taken"];
# WT-NEXT:    B11 -> B12 [label="not taken"];
# WT-NEXT:    B11 -> B13 [style=dashed, color=red, label="exc [3] lasti"];
# WT-NEXT:    B12 -> B13 [style=dashed, color=red, label="exc [3] lasti"];
# WT-NEXT:    B14 -> B15;
# WT-NEXT:    B14 -> B13 [style=dashed, color=red, label="exc [3] lasti no-raise"];
# WT-NEXT:  }
