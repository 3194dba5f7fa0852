# A .py file given directly is compiled by python3.11 (on PATH, or
# --python=) and checked like a .pyc. Compiler output is clean by default;
# the remarks show the dead handler CPython 3.11 keeps when a try body
# cannot raise (it still counts toward co_stacksize).
# RUN: %pyverify check %s | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check --python=%python %s | FileCheck %s --check-prefix=CLEAN
# CLEAN: pyverify: 1 file(s), 2 code object(s): 0 error(s), 0 warning(s), 0 remark(s)

def const():
    try:
        return 1
    except ValueError:
        return 2

# const: 2 NOP; 4 LOAD_CONST 1; 6 RETURN_VALUE; 8 PUSH_EXC_INFO ... 40 RERAISE
# 1 -- no entry covers 4..6, so nothing reaches 8..40.
# RUN: %pyverify check --python=%python --checks=* %s | FileCheck %s --check-prefix=REMARKS
# REMARKS:      {{.*}}py-input.py:11:16: remark: co_stacksize is 4 but no reachable instruction needs more than 1 [stacksize-larger-than-needed]
# REMARKS-NEXT:   in const (line 9) at offset 4: LOAD_CONST 1
# REMARKS-NEXT: {{.*}}py-input.py:11:16: note: the deepest point (offset 4)
# REMARKS-NEXT: {{.*}}py-input.py:{{[0-9]+}}: remark: 12 instruction(s) from 8 to 40 are unreachable [unreachable-code]
# REMARKS-NEXT:   in const (line 9) at offset 8 (no line of its own): PUSH_EXC_INFO
# REMARKS-NEXT: pyverify: 1 file(s), 2 code object(s): 0 error(s), 0 warning(s), 2 remark(s)

# A .py that does not compile is unreadable input: exit 2, with the
# compiler's message.
# RUN: %mkcode raw 6465662066283a0a %t.bad.py
# RUN: %not --code 2 %pyverify check --python=%python %t.bad.py 2>&1 | FileCheck %s --check-prefix=SYNTAX
# SYNTAX: pyverify: error: {{.*}}.bad.py: cannot compile with {{.*}}: {{.*}}.bad.py:1:7: error: invalid syntax
