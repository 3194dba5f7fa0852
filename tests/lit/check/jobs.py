# --jobs=N checks files in parallel but reports them in sorted path order:
# the output is byte-identical for every N. (Each diagnostic names this
# file, the source of the code, and the .pyc it was read from.)
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y

if __name__ == "mkcode":
    G, P = g.__code__, pick.__code__
    STACKSIZE = bc.set_stacksize(G, 2)
    CONFLICT = bc.patch(P, 8, "NOP", 0)
    OVERLAP = bc.set_entry(G, 1, start=6)
    UNSORTED = bc.with_entries(G, [bc.entries(G)[i] for i in (1, 0, 2)])
    WARNING = bc.patch(P, bc.offset_of(P, "RETURN_VALUE"), arg=3)

# Marshal files named .pyc (pyverify reads either by content), written in
# an order unlike the sorted one, one in a subdirectory, plus a real .pyc
# and a .py source; the directory is searched recursively.
# RUN: rm -rf %t.dir && mkdir -p %t.dir/sub
# RUN: %mkcode marshal %s %t.dir/e.pyc --object WARNING
# RUN: %mkcode marshal %s %t.dir/d.pyc --object UNSORTED
# RUN: %mkcode marshal %s %t.dir/sub/c.pyc --object OVERLAP
# RUN: %mkcode marshal %s %t.dir/b.pyc --object CONFLICT
# RUN: %mkcode marshal %s %t.dir/a.pyc --object STACKSIZE
# RUN: %mkcode pyc %s %t.dir/clean.pyc
# RUN: %mkcode raw 0a %t.dir/source.py
# RUN: %not --code 1 %pyverify check --python=%python --jobs=1 %t.dir > %t.jobs1
# RUN: %not --code 1 %pyverify check --python=%python --jobs=2 %t.dir > %t.jobs2
# RUN: %not --code 1 %pyverify check --python=%python --jobs=0 %t.dir > %t.jobs0
# RUN: diff %t.jobs1 %t.jobs2
# RUN: diff %t.jobs1 %t.jobs0
# RUN: FileCheck %s < %t.jobs1
# CHECK:      {{.*}}jobs.py:{{.*}} error: {{.*}} [exception-table-depth-exceeds-stacksize]
# CHECK-NEXT: read from {{.*}}dir/a.pyc{{$}}
# CHECK:      {{.*}}jobs.py:{{.*}} error: {{.*}} [stack-depth-conflict]
# CHECK-NEXT: read from {{.*}}dir/b.pyc{{$}}
# CHECK:      {{.*}}jobs.py:{{.*}} error: {{.*}} [exception-table-unsorted]
# CHECK-NEXT: read from {{.*}}dir/d.pyc{{$}}
# CHECK:      {{.*}}jobs.py:{{.*}} warning: {{.*}} [bytecode-extended-arg]
# CHECK-NEXT: read from {{.*}}dir/e.pyc{{$}}
# CHECK:      {{.*}}jobs.py:{{.*}} error: {{.*}} [exception-table-overlap]
# CHECK-NEXT: read from {{.*}}dir/sub/c.pyc{{$}}
# CHECK-NOT:  clean.pyc
# CHECK-NOT:  source.py
# CHECK:      pyverify: 7 file(s), {{[0-9]+}} code object(s): {{[0-9]+}} error(s), 1 warning(s), 0 remark(s)
