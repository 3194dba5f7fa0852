# cfg --dot on a file with several code objects writes ONE digraph, each
# code object a cluster subgraph with its node names prefixed "cK_", so that
# `dot` draws them all (before: one digraph per code object in one file, and
# dot drew only the first). --function=QUALNAME selects code objects by
# qualname; none matching is a usage error listing the nearest names.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify cfg --dot %t.pyc > %t.dot
# RUN: FileCheck %s --check-prefix=ALL < %t.dot
# RUN: %python %s %t.dot | FileCheck %s --check-prefix=VALID
# ALL:      digraph "pyverify cfg" {
# ALL-NEXT:   node [shape=box, fontname=monospace];
# ALL-NEXT: subgraph "cluster_0" {
# ALL-NEXT:   label="<module>";
# ALL:        c0_B0 [label="B0 entry
# ALL:      subgraph "cluster_1" {
# ALL-NEXT:   label="f";
# ALL:        c1_B0 [label="B0 entry
# ALL:      subgraph "cluster_3" {
# ALL-NEXT:   label="C.m";
# ALL-NOT:  digraph
# VALID: 1 digraph, 4 clusters, {{[0-9]+}} nodes, {{[0-9]+}} edges: valid

# One code object: its own digraph, as before.
# RUN: %pyverify cfg --dot --function=C.m %t.pyc | FileCheck %s --check-prefix=ONE
# ONE:      digraph "C.m" {
# ONE-NEXT:   node [shape=box, fontname=monospace];
# ONE-NEXT:   B0 [label="B0 entry
# ONE-NOT:  cluster

# The text form selects the same way.
# RUN: %pyverify cfg --function=f %t.pyc | FileCheck %s --check-prefix=TEXT
# TEXT:     CFG of f
# TEXT-NOT: CFG of

# RUN: %not --code 2 %pyverify cfg --dot --function=C.n %t.pyc 2>&1 | FileCheck %s --check-prefix=NONE
# NONE: error: cfg: no code object is named 'C.n'; nearest: C.m, C
# NONE-NOT: digraph


def f(x):
    return x + 1


class C:
    def m(self):
        return self


if __name__ == "__main__":
    # A syntax check of the Graphviz output (graphviz is not installed
    # here): one top-level digraph, balanced braces outside strings, node
    # names unique across clusters and every edge between defined nodes.
    import re, sys
    text = open(sys.argv[1]).read()
    depth, digraphs, clusters = 0, 0, 0
    nodes, edges = set(), []
    for line in text.splitlines():
        bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        if bare.startswith("digraph"):
            assert depth == 0, line
            digraphs += 1
        if bare.lstrip().startswith("subgraph"):
            assert depth == 1, line
            clusters += 1
        m = re.match(r"\s*(\w+) -> (\w+)", bare)
        if m:
            edges.append(m.groups())
        elif re.match(r"\s*(\w+) \[", bare) and not bare.lstrip().startswith("node"):
            name = re.match(r"\s*(\w+)", bare).group(1)
            assert name not in nodes, f"node {name} defined twice"
            nodes.add(name)
        depth += bare.count("{") - bare.count("}")
        assert depth >= 0, line
    assert depth == 0 and digraphs == 1, (depth, digraphs)
    for a, b in edges:
        assert a in nodes and b in nodes, (a, b)
    print(f"{digraphs} digraph, {clusters} clusters, {len(nodes)} nodes, "
          f"{len(edges)} edges: valid")
