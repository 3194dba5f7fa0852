# pyverify prove on rewriter bundles with a torch-function mode
# (docs/prove.md: F may hand its modes to the resume call, R pops them).
#
# The bundles come from rewriter-bundles.py (the same nested() and break
# point).
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %S/rewriter-bundles.py generate %t modes-correct modes-leaked-on-exception

# The correct rewrite with cm1 a mode: both code objects proved.
# RUN: %pyverify prove %t/modes-correct.pvb | FileCheck %s --check-prefix=CORRECT
# CORRECT:      modes-correct.pvb: [frame] proved
# CORRECT-NEXT:   in {{.+}} (line {{[0-9]+}})
# CORRECT-NEXT:   assuming: {{.+}}
# CORRECT: modes-correct.pvb: [resume:0] proved
# CORRECT-NEXT:   in {{.+}} (line {{[0-9]+}})
# CORRECT-NEXT:   assuming: {{.+}}
# CORRECT: pyverify: 1 file(s), 2 result(s): 2 proved, 0 refuted, 0 unknown

# The mode stays pushed when the graph call raises: refuted with a
# counterexample (the rewriter's expectation: smt:mode-leaked), and only
# this bug -- the resume function is the correct one.
# RUN: %not --code 1 %pyverify prove %t/modes-leaked-on-exception.pvb | FileCheck %s --check-prefix=LEAKED
# LEAKED:      modes-leaked-on-exception.pvb: [frame] refuted: exactly-once: {{.*}}mode{{.*}}
# LEAKED-NEXT:   in {{.+}} (line {{[0-9]+}})
# LEAKED-NEXT:   assuming: {{.+}}
# LEAKED:   eager (original{{( from [0-9]+)?}}){{ +}}emitted (frame)
# LEAKED:      {{^>> +[0-9]+ [A-Z_]+}}
# LEAKED-NEXT:   first divergence: {{.+}}
# LEAKED:      modes-leaked-on-exception.pvb: [resume:0] proved
# LEAKED-NEXT:   in {{.+}} (line {{[0-9]+}})
# LEAKED-NEXT:   assuming: {{.+}}
# LEAKED: pyverify: 1 file(s), 2 result(s): 1 proved, 1 refuted, 0 unknown
