# dis, cfg and analyze on a .pvb bundle show every code object it holds --
# the original, the frame and each resume function -- each labelled with
# its target as check and prove label it (docs/bundle-format.md); JSON rows
# carry "target". Before, only the dict's top-level values were taken: the
# resume functions were dropped and nothing said which was which.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %s %t/b.pvb

# RUN: %pyverify dis %t/b.pvb | FileCheck %s --check-prefix=DIS
# DIS:      Bundle {{.*}}b.pvb, [original] (break_offset {{[0-9]+}}):
# DIS-NEXT: Disassembly of <code object f,
# DIS:      Bundle {{.*}}b.pvb, [frame]:
# DIS-NEXT: Disassembly of <code object f,
# DIS:      Bundle {{.*}}b.pvb, [resume:0] (original_offset {{[0-9]+}}, contexts [with (handler {{[0-9]+}}, slot 0)]):
# DIS-NEXT: Disassembly of <code object pyverify_resume_in_f_at_{{[0-9]+}},

# One JSON line per target, in bundle order, each with its "target"; a
# plain file's rows have "target": null.
# RUN: %pyverify dis --format=json %t/b.pvb > %t/dis.json
# RUN: %python -c "import json; [print(d['target'], d['code']['qualname']) for d in map(json.loads, open(r'%t/dis.json'))]" | FileCheck %s --check-prefix=JSON
# JSON:      original f
# JSON-NEXT: frame f
# JSON-NEXT: resume:0 pyverify_resume_in_f_at_{{[0-9]+}}
# JSON-NOT:  {{.}}
# RUN: %mkcode pyc %s %t/plain.pyc
# RUN: %pyverify dis --format=json %t/plain.pyc | %python -c "import json, sys; print([json.loads(l)['target'] for l in sys.stdin])" | FileCheck %s --check-prefix=PLAIN
# PLAIN: [None]

# RUN: %pyverify cfg %t/b.pvb | FileCheck %s --check-prefix=CFG
# CFG:      CFG of [original] f ({{[0-9]+}} blocks)
# CFG:      CFG of [frame] f ({{[0-9]+}} blocks)
# CFG:      CFG of [resume:0] pyverify_resume_in_f_at_{{[0-9]+}} ({{[0-9]+}} blocks)
# RUN: %pyverify cfg --dot %t/b.pvb | FileCheck %s --check-prefix=DOT
# DOT:      subgraph "cluster_0" {
# DOT-NEXT:   label="[original] f";
# DOT:        label="[frame] f";
# DOT:        label="[resume:0] pyverify_resume_in_f_at_{{[0-9]+}}";

# RUN: %pyverify analyze --print=contexts %t/b.pvb | FileCheck %s --check-prefix=ANALYZE
# ANALYZE:      Bundle {{.*}}b.pvb, [original] (break_offset {{[0-9]+}}):
# ANALYZE:      Bundle {{.*}}b.pvb, [frame]:
# ANALYZE:      Bundle {{.*}}b.pvb, [resume:0] (original_offset {{[0-9]+}}, contexts [with (handler {{[0-9]+}}, slot 0)]):
# ANALYZE-NEXT: Disassembly of <code object pyverify_resume_in_f_at_{{[0-9]+}},
# RUN: %pyverify analyze --print=stack-depth --format=json %t/b.pvb | %python -c "import json, sys; print([json.loads(l)['target'] for l in sys.stdin])" | FileCheck %s --check-prefix=ANALYZE-JSON
# ANALYZE-JSON: ['original', 'frame', 'resume:0']

import os
import sys


def f(cm, g):
    with cm:
        y = g(1)
    return y


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "..", "..", "python"))
    import pyverify_rewriter as pr
    bp = next(b for b in pr.break_points(f) if b.reason is None)
    pr.write_bundle(sys.argv[1], pr.rewrite(f, bp.offset))
