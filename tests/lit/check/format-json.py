# check --format=json: the shape of one finding (docs/json.md), keys sorted
# by json.tool; the run time in "seconds" varies and is matched loosely.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y

if __name__ == "mkcode":
    # The then-branch's STORE_FAST y (byte 8) becomes a NOP: a depth
    # conflict at 16 LOAD_FAST y, whose two notes carry lines.
    # RUN: %mkcode marshal %s %t.bin
    # (The higher depth also overflows co_stacksize; left out here.)
    # RUN: %not --code 1 %pyverify check --checks=-stacksize-too-small --format=json %t.bin > %t.json
    # RUN: %python -m json.tool --sort-keys %t.json | FileCheck %s
    CODE = bc.patch(pick.__code__, 8, "NOP", 0)

# "code_index", "instruction" and a note's "col" (the Python Diagnostic's
# attributes, issue 27) were missing before.
# CHECK:      {
# CHECK-NEXT:     "diagnostics": [
# The conflict leaves the stack slots untyped: the value checks did not run,
# and "not_run" names them.
# CHECK-NEXT:         {
# CHECK-NEXT:             "certainty": "definite",
# CHECK-NEXT:             "check": "checks-not-run",
# CHECK-NEXT:             "code": "pick",
# CHECK-NEXT:             "code_index": 0,
# CHECK-NEXT:             "col": 0,
# CHECK-NEXT:             "file": "{{.*}}format-json.py.tmp.bin",
# CHECK-NEXT:             "firstlineno": 7,
# CHECK-NEXT:             "instruction": "RESUME 0",
# CHECK-NEXT:             "line": 7,
# CHECK-NEXT:             "message": "{{[0-9]+}} enabled checks did not run on this code object: the stack depths are inconsistent (stack-underflow or stack-depth-conflict), so stack slots cannot be typed; not run: null-stack-value, local-unbound{{.*}}",
# CHECK-NEXT:             "not_run": [
# CHECK-NEXT:                 "null-stack-value",
# CHECK-NEXT:                 "local-unbound"
# CHECK:                  ],
# CHECK-NEXT:             "notes": [],
# CHECK-NEXT:             "offset": 0,
# CHECK-NEXT:             "severity": "error",
# CHECK-NEXT:             "source": "{{.*}}check/format-json.py"
# CHECK-NEXT:         },
# CHECK-NEXT:         {
# CHECK-NEXT:             "certainty": "definite",
# CHECK-NEXT:             "check": "stack-depth-conflict",
# CHECK-NEXT:             "code": "pick",
# CHECK-NEXT:             "code_index": 0,
# CHECK-NEXT:             "col": 11,
# CHECK-NEXT:             "file": "{{.*}}format-json.py.tmp.bin",
# CHECK-NEXT:             "firstlineno": 7,
# CHECK-NEXT:             "instruction": "LOAD_FAST 1",
# CHECK-NEXT:             "line": 12,
# CHECK-NEXT:             "message": "LOAD_FAST 1 is reached at stack depth 1 and at depth 0; CPython requires one depth per instruction",
# CHECK-NEXT:             "notes": [
# CHECK-NEXT:                 {
# CHECK-NEXT:                     "col": 8,
# CHECK-NEXT:                     "line": 9,
# CHECK-NEXT:                     "message": "depth 1 by the jump at 10 JUMP_FORWARD 2",
# CHECK-NEXT:                     "offset": 10
# CHECK-NEXT:                 },
# CHECK-NEXT:                 {
# CHECK-NEXT:                     "col": 8,
# CHECK-NEXT:                     "line": 11,
# CHECK-NEXT:                     "message": "depth 0 by falling through from 14 STORE_FAST 1",
# CHECK-NEXT:                     "offset": 14
# CHECK-NEXT:                 }
# CHECK-NEXT:             ],
# CHECK-NEXT:             "offset": 16,
# CHECK-NEXT:             "severity": "error",
# CHECK-NEXT:             "source": "{{.*}}check/format-json.py"
# CHECK-NEXT:         }
# CHECK-NEXT:     ],
# CHECK-NEXT:     "input_errors": [],
# CHECK-NEXT:     "summary": {
# CHECK-NEXT:         "code_objects": 1,
# CHECK-NEXT:         "errors": 2,
# CHECK-NEXT:         "files": 1,
# CHECK-NEXT:         "not_fully_checked": 1,
# CHECK-NEXT:         "possible": 0,
# CHECK-NEXT:         "remarks": 0,
# CHECK-NEXT:         "seconds": {{[0-9.e+-]+}},
# CHECK-NEXT:         "unreadable": 0,
# CHECK-NEXT:         "warnings": 0
# CHECK-NEXT:     }
# CHECK-NEXT: }

# A clean file: an empty list, and exit 0.
# RUN: %mkcode pyc %s %t.pyc
# RUN: %pyverify check --format=json %t.pyc | %python -m json.tool --sort-keys | FileCheck %s --check-prefix=CLEAN
# CLEAN:      "diagnostics": [],
# CLEAN:      "code_objects": 2,
# CLEAN-NEXT: "errors": 0,
# CLEAN-NEXT: "files": 1,
