# pyverify stats runs the checks pyverify check runs, on the files check
# reads, says which checks those were, and exits as check does: 0 clean
# (warnings included), 1 on an error finding, 2 on unreadable input. Before,
# it ran only the decoders' checks: "findings: none" and exit 0 on a file
# check fails.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.small --object SMALL
    SMALL = bc.set_stacksize(k.__code__, 1)
    # RUN: %mkcode marshal %s %t.warn --object WARNING
    WARNING = bc.patch(k.__code__, bc.offset_of(k.__code__, "RETURN_VALUE"),
                       arg=1)

# The error check finds: stats reports it and exits 1, as check does.
# RUN: %not --code 1 %pyverify check %t.small > /dev/null
# RUN: %not --code 1 %pyverify stats %t.small | FileCheck %s --check-prefix=ERROR
# ERROR:      files:              1
# ERROR-NEXT: code objects:       1
# ERROR:      checks:             {{[0-9]+}} of {{[0-9]+}} check ids, the defaults of 'pyverify check'
# ERROR-NEXT: findings:           1 error(s), 0 warning(s), 0 remark(s)
# ERROR-NEXT:   stacksize-too-small (error): 1
# ERROR-NEXT: seconds:
# ERROR-NEXT: pyverify: 1 error(s); 'pyverify check' on the same paths prints them

# --checks= as in check: with the check off, nothing is found, exit 0.
# RUN: %pyverify stats --checks=-stacksize-too-small %t.small | FileCheck %s --check-prefix=OFF
# OFF:      checks:             {{[0-9]+}} of {{[0-9]+}} check ids, as 'pyverify check --checks=-stacksize-too-small'
# OFF-NEXT: findings:           none

# A warning only: counted, exit 0.
# RUN: %pyverify stats %t.warn | FileCheck %s --check-prefix=WARN
# WARN:      findings:           0 error(s), 1 warning(s), 0 remark(s)
# WARN-NEXT:   bytecode-extended-arg (warning): 1

# Clean compiler output (a .pyc, and this .py file compiled as check
# compiles it).
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify stats --python=%python %t.pyc %s | FileCheck %s --check-prefix=CLEAN
# CLEAN:      files:              2
# CLEAN:      findings:           none

# Unreadable input wins: exit 2, the readable file still counted.
# RUN: %mkcode raw 57 %t.garbage
# RUN: %not --code 2 %pyverify stats %t.small %t.garbage 2> %t.err | FileCheck %s --check-prefix=MIXED
# RUN: FileCheck %s --check-prefix=MIXED-ERR < %t.err
# MIXED: files:              1 (+1 unreadable)
# MIXED: stacksize-too-small (error): 1
# MIXED-ERR: error: {{.*}}.garbage: at byte 0: unknown marshal type code
