# --checks=SPEC enables and disables check ids, left to right over the
# defaults: id, -id, prefix-*, * and -*. A disabled check is silent and
# does not count toward the exit status; an enabled check that could not run
# is named (checks-not-run), whatever stopped it.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

if __name__ == "mkcode":
    # Entry 0 (4 to 14 -> 18 [0]) extended to byte 32: it overlaps entry 1
    # and covers its own handler -- two findings with different ids.
    # RUN: %mkcode marshal %s %t.bin
    CODE = bc.set_entry(g.__code__, 0, end=32)

# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s --check-prefix=ALL
# ALL: error: {{.*}} [exception-table-target-not-instruction]
# ALL: error: {{.*}} [exception-table-overlap]
# ALL: 3 error(s)

# RUN: %not --code 1 %pyverify check --checks=-exception-table-overlap %t.bin | FileCheck %s --check-prefix=NO-OVERLAP
# NO-OVERLAP-NOT: exception-table-overlap
# NO-OVERLAP:     error: {{.*}} [exception-table-target-not-instruction]
# NO-OVERLAP-NOT: exception-table-overlap
# NO-OVERLAP:     2 error(s)

# Both off: still not verified. The table errors stop the CFG, so every
# enabled check over it is named as not run (exit 1): switching the errors
# off does not make the code clean (before: exit 0, no findings).
# RUN: %not --code 1 %pyverify check --checks=-exception-table-overlap,-exception-table-target-not-instruction %t.bin | FileCheck %s --check-prefix=NONE
# RUN: %not --code 1 %pyverify check --checks=-exception-table-* %t.bin | FileCheck %s --check-prefix=NONE
# NONE-NOT: [exception-table-
# NONE:     error: {{[0-9]+}} enabled checks did not run on this code object: the exception table is malformed (exception-table-target-not-instruction); not run: falls-off-end, {{.*}} [checks-not-run]
# NONE-NOT: [exception-table-
# NONE:     pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s); 1 code object(s) not fully checked

# Every check off: nothing was asked for, nothing is reported, exit 0.
# RUN: %pyverify check --checks=-* %t.bin | FileCheck %s --check-prefix=OFF
# OFF-NOT: error:
# OFF:     pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)

# Later items win: everything off, then one back on.
# RUN: %not --code 1 %pyverify check '--checks=-*,exception-table-overlap' %t.bin | FileCheck %s --check-prefix=ONLY
# ONLY-NOT: exception-table-target-not-instruction
# ONLY:     error: {{.*}} [exception-table-overlap]
# ONLY:     1 error(s)

# A name that matches no check is a usage error (exit 2).
# RUN: %not --code 2 %pyverify check --checks=-no-such-check %t.bin 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: error: --checks: 'no-such-check' names no check (see 'pyverify check --list-checks')

# --list-checks prints every id with its default severity.
# RUN: %pyverify check --list-checks | FileCheck %s --check-prefix=LIST
# LIST:      bytecode-decode  [error]
# LIST-NEXT: bytecode-extended-arg  [warning]
# LIST:      exception-table-noncanonical  [warning]
# LIST:      stacksize-larger-than-needed  [remark, off by default]
# LIST-NEXT: unreachable-code  [remark, off by default]

# --checks given more than once combines, left to right, as one spec joined
# by commas (before, a second --checks was a usage error). stats takes it
# the same way. (exception-table-callee-split is left out of the glob's
# run: it reads the CFG's reachability, which this malformed table has none
# of, so enabling it adds the checks-not-run line that names it.)
# RUN: %not --code 1 %pyverify check --checks=-* --checks=exception-table-overlap %t.bin | FileCheck %s --check-prefix=ONLY
# RUN: %not --code 1 %pyverify check --checks=-* --checks=exception-table-* --checks=-exception-table-target-not-instruction --checks=-exception-table-callee-split %t.bin | FileCheck %s --check-prefix=ONLY
# RUN: %not --code 1 %pyverify check --checks=-* --checks=exception-table-* --checks=-exception-table-target-not-instruction %t.bin | FileCheck %s --check-prefix=GLOB
# GLOB: 1 enabled check did not run on this code object: the exception table is malformed (exception-table-target-not-instruction); not run: exception-table-callee-split [checks-not-run]
# GLOB: [exception-table-overlap]
# RUN: %not --code 1 %pyverify check --checks=-exception-table-overlap --checks=-exception-table-target-not-instruction %t.bin | FileCheck %s --check-prefix=NONE
# RUN: %not --code 1 %pyverify stats --checks=-* --checks=exception-table-overlap %t.bin | FileCheck %s --check-prefix=STATS
# STATS:      checks: 1 of {{[0-9]+}} check ids, as 'pyverify check --checks=-* --checks=exception-table-overlap'
# STATS-NEXT: findings: 1 error(s), 0 warning(s), 0 remark(s)
# STATS-NEXT:   exception-table-overlap (error): 1

# --list-checks --format=json: {"checks": [...]}, one object per id in
# Checks.def order (rule_index = the SARIF ruleIndex), with its default
# severity, whether it is on by default, its summary and its help URI.
# RUN: %pyverify check --list-checks --format=json | %python -m json.tool --sort-keys | FileCheck %s --check-prefix=JSON
# JSON:      "checks": [
# JSON-NEXT:     {
# JSON-NEXT:         "enabled_by_default": true,
# JSON-NEXT:         "help_uri": "https://github.com/pyverify/pyverify/blob/main/docs/checks.md#bytecode-decode",
# JSON-NEXT:         "id": "bytecode-decode",
# JSON-NEXT:         "rule_index": 0,
# JSON-NEXT:         "severity": "error",
# JSON-NEXT:         "summary": "malformed instruction: {{.*}}"
# JSON-NEXT:     },
# JSON:              "help_uri": "{{.*}}#unreachable-code",
# JSON-NEXT:         "id": "unreachable-code",
# JSON-NEXT:         "rule_index": {{[0-9]+}},
# JSON-NEXT:         "severity": "remark",
# RUN: %not --code 2 %pyverify check --list-checks --format=sarif 2>&1 | FileCheck %s --check-prefix=LIST-SARIF
# LIST-SARIF: error: check: --list-checks prints --format=text or --format=json
