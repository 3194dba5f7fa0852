# pyverify check exits 0 when clean (warnings and remarks included), 1 on
# error findings, 2 on usage errors or unreadable input -- 2 wins over 1,
# and the readable files are still reported.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.warn --object WARNING
    WARNING = bc.patch(k.__code__, bc.offset_of(k.__code__, "RETURN_VALUE"),
                       arg=1)
    # RUN: %mkcode marshal %s %t.err --object ERROR
    ERROR = bc.set_stacksize(k.__code__, 1)

# 0: a clean .pyc, and a file with only a warning.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify check %t.pyc
# RUN: %pyverify check %t.warn | FileCheck %s --check-prefix=WARN
# WARN: 0 error(s), 1 warning(s)

# 1: an error finding.
# RUN: %not --code 1 %pyverify check %t.pyc %t.err | FileCheck %s --check-prefix=ERR
# ERR: 2 file(s), {{[0-9]+}} code object(s): 1 error(s)

# 2: no path, a missing path, an unreadable file, a bad option.
# RUN: %not --code 2 %pyverify check 2>&1 | FileCheck %s --check-prefix=NOPATH
# NOPATH: error: check: no input paths given
# RUN: %mkcode raw 57 %t.garbage
# RUN: %not --code 2 %pyverify check %t.garbage 2>&1 | FileCheck %s --check-prefix=GARBAGE
# GARBAGE: error: {{.*}}.garbage: at byte 0: unknown marshal type code 'W' (0x57) where an object was expected
# RUN: %not --code 2 %pyverify check --format=xml %t.pyc 2>&1 | FileCheck %s --check-prefix=OPTION
# OPTION: for the --format option: Cannot find option named 'xml'!

# 2 wins over 1; the error in the readable file is still printed.
# RUN: %not --code 2 %pyverify check %t.err %t.missing > %t.mixed.out 2> %t.mixed.err
# RUN: FileCheck %s --check-prefix=MIXED-OUT < %t.mixed.out
# RUN: FileCheck %s --check-prefix=MIXED-ERR < %t.mixed.err
# MIXED-OUT: {{.*}}.py:9:{{[0-9]+}}: error: the stack reaches depth 2 {{.*}} [stacksize-too-small]
# MIXED-OUT: pyverify: 1 file(s), 1 code object(s): 1 error(s)
# MIXED-ERR: error: {{.*}}.missing: no such file or directory
