# A finding at an instruction the location table gives no line (generated
# code: Dynamo's resume functions have none) is placed at the code object's
# first line (co_firstlineno), marked as such: the text output prints
# FILE:LINE: (no column) and says "no line of its own"; every SARIF result
# and related location has a region whose startLine >= 1 (GitHub code
# scanning rejects a result without region.startLine), with
# properties.line_source = "firstlineno". The JSON keeps "line": null (it
# has "firstlineno"). Before: `FILE: error:` with no line, and SARIF
# results and relatedLocations without a region.
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))

def pick(x):
    if x:
        y = 1
    else:
        y = 2
    return y

if __name__ == "mkcode":
    import breakcode as bc
    # The STORE_FAST y of the then-branch (byte 8) becomes a NOP: a depth
    # conflict at 16 with two notes; no instruction has a position.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %not --code 1 %pyverify check --checks=-stacksize-too-small %t.bin | FileCheck %s --check-prefix=TEXT
    # RUN: %not --code 1 %pyverify check --checks=-stacksize-too-small --format=json %t.bin | FileCheck %s --check-prefix=JSON
    # RUN: %not --code 1 %pyverify check --checks=-stacksize-too-small --format=sarif %t.bin > %t.sarif
    # RUN: %python %s %t.sarif | FileCheck %s --check-prefix=SARIF
    code = bc.patch(pick.__code__, 8, "NOP", 0)
    n = len(code.co_code) // 2
    CODE = code.replace(co_linetable=bc._encode_locations(code, [None] * n))

# TEXT:      {{.*}}check/no-line-fallback.py:13: error: {{.*}} [checks-not-run]
# TEXT-NEXT:   in pick (line 13) at offset 0 (no line of its own): RESUME 0, read from {{.*}}.bin
# TEXT-NEXT: {{.*}}check/no-line-fallback.py:13: error: LOAD_FAST 1 is reached at stack depth 1 and at depth 0; {{.*}} [stack-depth-conflict]
# TEXT-NEXT:   in pick (line 13) at offset 16 (no line of its own): LOAD_FAST 1, read from {{.*}}.bin
# TEXT-NEXT: {{.*}}check/no-line-fallback.py:13: note: depth 1 by the jump at 10 JUMP_FORWARD 2 (offset 10)
# TEXT-NEXT: {{.*}}check/no-line-fallback.py:13: note: depth 0 by falling through from 14 STORE_FAST 1 (offset 14)

# JSON:      "firstlineno": 13,
# JSON:      "line": null,

# SARIF:      result stack-depth-conflict: startLine 13, line_source firstlineno
# SARIF-NEXT:   related: startLine 13, line_source firstlineno
# SARIF-NEXT:   related: startLine 13, line_source firstlineno
# SARIF-NEXT: locations without region.startLine >= 1: 0 of 4

if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        log = json.load(f)
    total = bad = 0
    for r in log["runs"][0]["results"]:
        for kind, locs in (("result", r["locations"]),
                           ("  related", r.get("relatedLocations", []))):
            for loc in locs:
                total += 1
                region = loc["physicalLocation"].get("region", {})
                line = region.get("startLine")
                if not isinstance(line, int) or line < 1:
                    bad += 1
                if r["ruleId"] == "stack-depth-conflict":
                    name = " " + r["ruleId"] if kind == "result" else ""
                    print("%s%s: startLine %s, line_source %s" % (
                        kind, name, line,
                        region.get("properties", {}).get("line_source")))
    print("locations without region.startLine >= 1: %d of %d" % (bad, total))
