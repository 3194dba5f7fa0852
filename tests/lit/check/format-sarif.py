# check --format=sarif: a SARIF 2.1.0 log with one result per finding; its
# ruleId is the check id and notes become relatedLocations.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

if __name__ == "mkcode":
    # co_stacksize 1 for a code object that needs 2.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check --format=sarif %t.bin > %t.sarif
    # RUN: %python -m json.tool --sort-keys %t.sarif | FileCheck %s
    CODE = bc.set_stacksize(k.__code__, 1)

# CHECK:      "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
# CHECK-NEXT: "runs": [
# CHECK:          "invocations": [
# CHECK-NEXT:         {
# CHECK-NEXT:             "executionSuccessful": true,
# CHECK-NEXT:             "toolExecutionNotifications": []
# CHECK-NEXT:         }
# CHECK-NEXT:     ],
# CHECK-NEXT:     "results": [
# CHECK-NEXT:         {
# CHECK-NEXT:             "analysisTarget": {
# CHECK-NEXT:                 "uri": "file:///{{.*}}format-sarif.py.tmp.bin"
# CHECK-NEXT:             },
# CHECK-NEXT:             "level": "error",
# CHECK-NEXT:             "locations": [
# CHECK-NEXT:                 {
# CHECK-NEXT:                     "logicalLocations": [
# CHECK-NEXT:                         {
# CHECK-NEXT:                             "fullyQualifiedName": "k",
# CHECK-NEXT:                             "kind": "function"
# CHECK-NEXT:                         }
# CHECK-NEXT:                     ],
# CHECK-NEXT:                     "physicalLocation": {
# CHECK-NEXT:                         "artifactLocation": {
# CHECK-NEXT:                             "uri": "file:///{{.*}}check/format-sarif.py"
# CHECK-NEXT:                         },
# CHECK-NEXT:                         "region": {
# CHECK-NEXT:                             "startColumn": 16,
# CHECK-NEXT:                             "startLine": 8
# CHECK-NEXT:                         }
# CHECK-NEXT:                     }
# CHECK-NEXT:                 }
# CHECK-NEXT:             ],
# CHECK-NEXT:             "message": {
# CHECK-NEXT:                 "text": "the stack reaches depth 2 at LOAD_CONST 1 but co_stacksize is 1; the frame is too small and the interpreter will write past it (co_stacksize must be at least 2) (in k at offset 4: LOAD_CONST 1)"
# CHECK-NEXT:             },
# CHECK-NEXT:             "properties": {
# CHECK-NEXT:                 "certainty": "definite"
# CHECK-NEXT:             },
# CHECK-NEXT:             "ruleId": "stacksize-too-small",
# CHECK-NEXT:             "ruleIndex": {{[0-9]+}}
# CHECK-NEXT:         }
# CHECK-NEXT:     ],
# CHECK-NEXT:     "tool": {
# CHECK-NEXT:         "driver": {
# CHECK:                  "name": "pyverify",
# CHECK-NEXT:             "rules": [
# Every check is listed, in Checks.def order; the remarks are off by default.
# CHECK:                      "id": "bytecode-decode",
# CHECK:                      "id": "stacksize-too-small",
# CHECK:                          "enabled": false,
# CHECK-NEXT:                     "level": "note"
# CHECK-NEXT:                 },
# CHECK-NEXT:                 "helpUri": "https://github.com/pyverify/pyverify/blob/main/docs/checks.md#stacksize-larger-than-needed",
# CHECK-NEXT:                 "id": "stacksize-larger-than-needed",
# CHECK:                      "id": "unreachable-code",
# The ids added later come last, so the earlier ones keep their ruleIndex.
# CHECK:                      "id": "analysis-limit",
# CHECK:                      "id": "with-body-entered-without-enter",
# CHECK:      "version": "2.1.0"
