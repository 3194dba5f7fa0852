# "Clean" never means "not looked at" (issue 24). Each check runs on what
# could be decoded: a broken location table leaves the instructions and the
# exception table intact, so the CFG, stack and context checks still run; a
# check whose input could not be decoded is named in a checks-not-run error
# (text, JSON, SARIF), whatever --checks= says of the error that stopped it.
#
# Measured: calling a code object that runs off the end of co_code executes
# whatever memory follows co_code. EMPTY dies with SIGSEGV on python3.11.2,
# 3.11.7 and 3.13.0; 3.12.1 runs the bytes after it (here a TypeError).
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def k(x):
    return x + 1

# k: 0 RESUME; 2 LOAD_FAST x; 4 LOAD_CONST 1; 6 BINARY_OP + (cache 8);
#    10 RETURN_VALUE: 6 code units.

if __name__ == "mkcode":
    code = k.__code__
    ret = bc.offset_of(code, "RETURN_VALUE")
    assert ret == 10

    # Empty code: the first instruction fetch is past the end.
    # RUN: %mkcode marshal %s %t.empty --object EMPTY
    # RUN: %not --code 1 %pyverify check %t.empty | FileCheck %s --check-prefix=EMPTY
    # RUN: %not --code 1 %pyverify check --python-version=3.12 %t.empty | FileCheck %s --check-prefix=EMPTY
    # RUN: %not --code 1 %pyverify check --python-version=3.13 %t.empty | FileCheck %s --check-prefix=EMPTY
    EMPTY = code.replace(co_code=b"", co_linetable=b"", co_exceptiontable=b"")
    # EMPTY:      error: co_code is empty: a call executes past the end of the code [falls-off-end]
    # EMPTY-NEXT:   in k (line 14) at offset 0
    # EMPTY-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # Falls off the end, and the location table is broken: both are
    # reported (before: only the location table).
    # RUN: %mkcode marshal %s %t.loc --object FALLS_BAD_LOCATIONS
    # RUN: %not --code 1 %pyverify check %t.loc | FileCheck %s --check-prefix=LOC
    FALLS = bc.patch(code, ret, "POP_TOP")
    FALLS_BAD_LOCATIONS = FALLS.replace(co_linetable=FALLS.co_linetable[:-1])
    # LOC-DAG: error: POP_TOP is the last instruction and can fall through past the end of the code [falls-off-end]
    # LOC-DAG: error: co_linetable at byte {{[0-9]+}}: truncated location table: {{.*}} [location-table-decode]
    # LOC:     pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # With the location check switched off, the code is still not clean
    # (before: exit 0, no findings).
    # RUN: %not --code 1 %pyverify check --checks=-location-table-decode %t.loc | FileCheck %s --check-prefix=LOCOFF
    # LOCOFF:      error: POP_TOP is the last instruction and can fall through past the end of the code [falls-off-end]
    # LOCOFF-NEXT:   in k (line 14) at offset 10 (no line of its own): POP_TOP
    # LOCOFF-NEXT: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # An exception table that does not decode: the CFG needs it, so every
    # check over the CFG is named as not run, with the reason.
    # RUN: %mkcode marshal %s %t.tab --object FALLS_BAD_TABLE
    # RUN: %not --code 1 %pyverify check %t.tab | FileCheck %s --check-prefix=TAB
    FALLS_BAD_TABLE = FALLS.replace(co_exceptiontable=b"\x88")
    # TAB: error: co_exceptiontable {{.*}} [exception-table-decode]
    # TAB: error: {{[0-9]+}} enabled checks did not run on this code object: the exception table is malformed (exception-table-decode); not run: exception-table-zero-length, {{.*}}, falls-off-end, stack-underflow, {{.*}} [checks-not-run]
    # TAB: pyverify: 1 file(s), 1 code object(s): 2 error(s)

    # Switching the table's own error off does not make the code clean.
    # RUN: %not --code 1 %pyverify check --checks=-exception-table-decode %t.tab | FileCheck %s --check-prefix=TABOFF
    # TABOFF-NOT: [exception-table-decode]
    # TABOFF: error: {{.*}} did not run on this code object: the exception table is malformed (exception-table-decode); {{.*}} [checks-not-run]
    # TABOFF: pyverify: 1 file(s), 1 code object(s): 1 error(s)

    # The JSON output lists the checks that did not run.
    # RUN: %not --code 1 %pyverify check --format=json %t.tab | FileCheck %s --check-prefix=JSON
    # JSON: "check": "checks-not-run"
    # JSON: "not_run": [
    # JSON-NEXT: "exception-table-zero-length",
    # JSON: "not_fully_checked": 1

    # In SARIF, an error result under the checks-not-run rule.
    # RUN: %not --code 1 %pyverify check --format=sarif %t.tab | FileCheck %s --check-prefix=SARIF
    # SARIF: "ruleId": "checks-not-run"

    # Only the checks asked for are named; none asked for, none named.
    # RUN: %not --code 1 %pyverify check --checks=-*,falls-off-end %t.tab | FileCheck %s --check-prefix=ONE
    # ONE: error: 1 enabled check did not run on this code object: the exception table is malformed (exception-table-decode); not run: falls-off-end [checks-not-run]
    # RUN: %not --code 1 %pyverify check --checks=-*,exception-table-decode %t.tab | FileCheck %s --check-prefix=NONE
    # NONE-NOT: [checks-not-run]

    # An undecodable instruction stream: nothing over the CFG runs either.
    # RUN: %mkcode marshal %s %t.op --object BAD_OPCODE
    # RUN: %not --code 1 %pyverify check %t.op | FileCheck %s --check-prefix=OP
    BAD_OPCODE = bc.replace_bytes(code, 2, bytes([0xEE, 0]))
    # OP-DAG: [bytecode-decode]
    # OP-DAG: error: {{.*}} did not run on this code object: the instruction stream is malformed (bytecode-decode); not run: falls-off-end, {{.*}} [checks-not-run]
