# with-body-uncovered: an instruction of a with body that cannot raise by
# itself, left outside the with's handler. A trace function can raise there
# (sys.settrace with f_trace_opcodes, a line event: pdb's quit, coverage
# tools; measured by tests/versions/check_raise_tiers.py) and then the
# context stays entered. Before this check, both variants below were clean:
# context-not-exited looks only at instructions that raise by themselves.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(cm, a):
    with cm:
        y = 1
        z = y + a
    return z

# f: 4 BEFORE_WITH; 6 POP_TOP; 8 LOAD_CONST 1; 10 STORE_FAST y;
#    12 LOAD_FAST y; 14 LOAD_FAST a; 16 BINARY_OP +; 20 STORE_FAST z;
#    22 LOAD_CONST None x3; 28 PRECALL 2; 32 CALL 2 ... 46 PUSH_EXC_INFO.
#    Table: 6 to 20 -> 46 [1] lasti, 46 to 52 -> 54 [3] lasti, 60 to 60 ...

if __name__ == "mkcode":
    code = f.__code__
    table = bc.entries(code)
    assert str(table[0]) == "6 to 20 -> 46 [1] lasti", table[0]

    # The with's entry has a hole over `y = 1`: LOAD_CONST and STORE_FAST
    # are uncovered (the shape of a resume function whose redirected body
    # entries were dropped where the body cannot raise by itself).
    # RUN: %mkcode marshal %s %t.late.bin --object LATE
    # RUN: %not --code 1 %pyverify check %t.late.bin | FileCheck %s --check-prefix=LATE
    LATE = bc.with_entries(code, [bc.Entry(6, 8, 46, 1, True),
                                  bc.Entry(12, 22, 46, 1, True)] + table[1:])
    # LATE: {{.*}}.py:13:13: error: 8 LOAD_CONST .. 10 STORE_FAST (2 instructions) runs in the body of the with entered at 4, but no exception-table entry covers it: an exception a trace function raises there (a line or opcode event: pdb, coverage tools; the tracing tier of the raise model) leaves the context entered. CPython's compiler covers every with-body instruction but NOPs, the exit sequence and the handler's start [with-body-uncovered]
    # LATE-NEXT: in f (line 11) at offset 8: LOAD_CONST 1
    # LATE-NEXT: {{.*}}: note: the context is entered here
    # LATE: pyverify: 1 file(s), 1 code object(s): 1 error(s), 0 warning(s), 0 remark(s)

    # An entry over `z = y + a` whose depth drops the bound __exit__: the
    # BINARY_OP raises by itself (context-not-exited), the STORE_FAST only
    # through a trace function. Each is reported once, by its own check.
    # RUN: %mkcode marshal %s %t.shallow.bin --object SHALLOW
    # RUN: %not --code 1 %pyverify check %t.shallow.bin | FileCheck %s --check-prefix=SHALLOW
    SHALLOW = bc.with_entries(code, [bc.Entry(6, 12, 46, 1, True),
                                     bc.Entry(12, 22, 46, 0, True)] + table[1:])
    # SHALLOW-DAG: [context-not-exited]
    # SHALLOW-DAG: error: 20 STORE_FAST runs in the body of the with entered at 4, but entry 1 (12 to 20 -> 46 [0] lasti) unwinds below its bound __exit__ (slot 0){{.*}}[with-body-uncovered]

    # The compiler's own code: nothing (its NOPs, the exit sequence and the
    # handler's start are outside the with's entry by design, measured).
    # RUN: %mkcode marshal %s %t.ok.bin --object OK
    # RUN: %pyverify check --checks=with-body-uncovered %t.ok.bin | FileCheck %s --check-prefix=OK
    OK = code
    # OK: pyverify: 1 file(s), 1 code object(s): 0 error(s)
