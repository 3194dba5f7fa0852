# A marshal stream does not say its version. One that looks like another
# version's bytecode (OtherVersions.h: it fails to decode as 3.11, decodes
# cleanly as 3.12 and an instruction shows it) is one input error, exit 2,
# naming the version and the option -- in text, JSON and SARIF, for every
# command -- never a check with 3.11's tables. Before, check gave the note
# on stderr only and 7 bogus 3.11 errors on this two-function stream (65 on
# a larger one), exit 1, and JSON had only the errors. It is not read as
# 3.12 unasked: 3.11 and 3.12 compile `def f(x): return x` to the same bytes,
# and a code object's marshal layout is the same in 3.11, 3.12 and 3.13, so
# no shape of the stream proves its version.
# RUN: %mkcode marshal %s %t.v312
# RUN: %not --code 2 %pyverify check %t.v312 > %t.out 2> %t.err
# RUN: FileCheck %s --check-prefix=ERR < %t.err
# RUN: FileCheck %s --check-prefix=OUT < %t.out
# ERR: pyverify: error: {{.*}}.v312: this looks like CPython 3.12 bytecode, not 3.11: offset 8 of <module> holds 3.12's RETURN_CONST (byte 121), not a 3.11 opcode; a marshal stream does not say its version, and one that looks like another is not read as 3.11: pass --python-version=3.12 (or --python-version=3.11 to read it as 3.11 anyway){{$}}
# ERR-NOT: error
# OUT: pyverify: 0 file(s), 0 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
# RUN: %not --code 2 %pyverify check --format=json %t.v312 2>/dev/null | FileCheck %s --check-prefix=JSON
# JSON:      "diagnostics": [],
# JSON-NEXT: "input_errors": [
# JSON-NEXT:   {
# JSON-NEXT:     "file": "{{.*}}.v312",
# JSON-NEXT:     "message": "{{.*}}.v312: this looks like CPython 3.12 bytecode, not 3.11: {{.*}}: pass --python-version=3.12 {{.*}}"
# JSON:        "unreadable": 1
# RUN: %not --code 2 %pyverify check --format=sarif %t.v312 2>/dev/null | FileCheck %s --check-prefix=SARIF
# SARIF: "level": "error",
# SARIF: this looks like CPython 3.12 bytecode
# RUN: %not --code 2 %pyverify prove %t.v312 2>&1 | FileCheck %s --check-prefix=ERR
# RUN: %not --code 2 %pyverify dis %t.v312 2>&1 | FileCheck %s --check-prefix=ERR

# Told the version, each is read as told: 3.12 is clean; 3.11 gives the
# 3.11 errors, with the note as a warning.
# RUN: %pyverify check --python-version=3.12 %t.v312 | FileCheck %s --check-prefix=AS312
# AS312: 0 error(s), 0 warning(s)
# RUN: %not --code 1 %pyverify check --python-version=3.11 %t.v312 2>&1 | FileCheck %s --check-prefix=AS311
# AS311: note: {{.*}}.v312: this looks like CPython 3.12 bytecode
# AS311: error: {{.*}}[bytecode-decode]

# 3.11 code the bytes of which 3.12 reads the same is 3.11's, as before.
# RUN: %mkcode marshal %s %t.same --object SAME
# RUN: %pyverify check %t.same | FileCheck %s --check-prefix=AS312

if __name__ == "mkcode":
    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from v312code import MARSHAL as CODE

    def f(x):
        return x

    SAME = f.__code__
