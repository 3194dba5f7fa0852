# check --format=sarif: artifact URIs are percent-encoded (file:// for an
# absolute path: a space is %20, '#' is %23); every rule has a helpUri, the
# check's anchor in docs/checks.md, and that anchor exists; inputs that could
# not be read are the invocation's toolExecutionNotifications (SARIF) and
# "input_errors" (JSON), not only lines on stderr. Before, the URI was the
# raw path, no rule had a helpUri, and unreadable inputs were absent.
import json, os, sys

def k(x):
    return x + 1

if __name__ == "mkcode":
    # RUN: rm -rf %t && mkdir -p "%t/a dir"
    # RUN: %mkcode marshal %s "%t/a dir/k#1.bin"
    import types
    CODE = k.__code__.replace(co_stacksize=1)

# RUN: %mkcode raw 57 %t/garbage.bin
# RUN: %not --code 2 %pyverify check --format=sarif "%t/a dir/k#1.bin" %t/garbage.bin %t/missing.pyc > %t/log.sarif
# RUN: %python %s %t/log.sarif | FileCheck %s --check-prefix=SARIF
# The result's location is the source the line numbers are of (the code's
# co_filename, this file); the marshal file it was read from is the
# result's analysisTarget.
# SARIF:      result uri: file:///{{.*}}/check/sarif-inputs.py
# SARIF-NEXT: analysis target: file:///{{.*}}/a%20dir/k%231.bin
# SARIF-NEXT: rules with a documented helpUri: {{[0-9]+}} of {{[0-9]+}}
# SARIF-NEXT: executionSuccessful: False
# SARIF-NEXT: error file:///{{.*}}/missing.pyc: {{.*}}missing.pyc: no such file or directory
# SARIF-NEXT: error file:///{{.*}}/garbage.bin: {{.*}}garbage.bin: at byte 0: unknown marshal type code 'W' (0x57) where an object was expected

# A clean run: the invocation succeeded, with no notification.
# RUN: %mkcode pyc %s %t/clean.pyc
# RUN: %pyverify check --format=sarif %t/clean.pyc > %t/clean.sarif
# RUN: %python %s %t/clean.sarif | FileCheck %s --check-prefix=CLEAN
# CLEAN:      rules with a documented helpUri: [[N:[0-9]+]] of [[N]]
# CLEAN-NEXT: executionSuccessful: True
# CLEAN-NOT:  {{.}}

# The JSON output has "input_errors" beside "diagnostics", counted in the
# summary.
# RUN: %not --code 2 %pyverify check --format=json "%t/a dir/k#1.bin" %t/garbage.bin %t/missing.pyc > %t/out.json
# RUN: %python -m json.tool --sort-keys %t/out.json | FileCheck %s --check-prefix=JSON
# JSON:      "input_errors": [
# JSON-NEXT:     {
# JSON-NEXT:         "file": "{{.*}}/missing.pyc",
# JSON-NEXT:         "message": "{{.*}}/missing.pyc: no such file or directory"
# JSON-NEXT:     },
# JSON-NEXT:     {
# JSON-NEXT:         "file": "{{.*}}/garbage.bin",
# JSON-NEXT:         "message": "{{.*}}garbage.bin: at byte 0: unknown marshal type code 'W' (0x57) where an object was expected"
# JSON-NEXT:     }
# JSON-NEXT: ],
# JSON:          "files": 1,
# JSON:          "unreadable": 2,

if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        run = json.load(f)["runs"][0]
    for r in run["results"]:
        print("result uri:",
              r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        print("analysis target:", r["analysisTarget"]["uri"])
    docs = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "..", "docs", "checks.md")).read()
    rules = run["tool"]["driver"]["rules"]
    good = 0
    for rule in rules:
        base, anchor = rule["helpUri"].split("#")
        assert base.endswith("/docs/checks.md"), rule
        assert anchor == rule["id"], rule
        good += '<a id="%s"></a>' % anchor in docs
    print("rules with a documented helpUri: %d of %d" % (good, len(rules)))
    inv = run["invocations"][0]
    print("executionSuccessful:", inv["executionSuccessful"])
    for n in inv["toolExecutionNotifications"]:
        uri = n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        print(n["level"], uri + ":", n["message"]["text"])
