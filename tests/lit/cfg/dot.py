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
# CHECK-NEXT:    B1 [label="B1\l4 LOAD_FAST 0 (x)\l"];
# CHECK-NEXT:    B2 [label="B2\l6 LOAD_ATTR 0 (y)\l"];
# CHECK-NEXT:    B3 [label="B3\l16 RETURN_VALUE\l"];
# CHECK-NEXT:    B4 [label="B4\l18 PUSH_EXC_INFO\l20 LOAD_GLOBAL 2 (AttributeError)\l"];
# CHECK:         B10 [label="B10\l46 COPY 3\l48 POP_EXCEPT\l50 RERAISE 1\l"];
# CHECK-NEXT:    B0 -> B1;
# CHECK-NEXT:    B1 -> B2;
# CHECK-NEXT:    B1 -> B4 [style=dashed, color=red, label="exc [0]"];
# CHECK-NEXT:    B2 -> B3;
# CHECK-NEXT:    B2 -> B4 [style=dashed, color=red, label="exc [0]"];
# CHECK-NEXT:    B4 -> B5;
# CHECK-NEXT:    B4 -> B10 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK:         B6 -> B9 [label="taken"];
# CHECK-NEXT:    B6 -> B7 [label="not taken"];
# CHECK-NEXT:    B6 -> B10 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK-NEXT:    B7 -> B8;
# CHECK-NEXT:    B7 -> B10 [style=dashed, color=red, label="exc [1] lasti no-raise"];
# CHECK-NEXT:    B9 -> B10 [style=dashed, color=red, label="exc [1] lasti"];
# CHECK-NEXT:  }

# A dead handler (CPython keeps the except clause of a body that cannot
# raise) is drawn gray.
def const():
    try:
        return 1
    except ValueError:
        return 2

# CHECK-LABEL: digraph "const" {
# CHECK:         B1 [label="B1\l8 PUSH_EXC_INFO\l10 LOAD_GLOBAL 0 (ValueError)\l", color=gray];
