# bytecode-extended-arg: an argument given to an opcode that takes none. A
# warning (CPython ignores the argument), so the exit status stays 0.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    pass
    x()

# g: 0 RESUME; 2 NOP (the `pass`); 4 PUSH_NULL; 6 LOAD_FAST x; ...

if __name__ == "mkcode":
    code = g.__code__
    nop = bc.offset_of(code, "NOP")
    push_null = bc.offset_of(code, "PUSH_NULL")
    assert (nop, push_null) == (2, 4)

    # The `pass` NOP becomes an EXTENDED_ARG prefix of PUSH_NULL.
    # RUN: %mkcode marshal %s %t.prefix --object PREFIX
    # RUN: %pyverify check %t.prefix | FileCheck %s --check-prefix=PREFIX
    PREFIX = bc.patch(code, nop, "EXTENDED_ARG", 1)
    # PREFIX:      {{.*}}.py:9:5: warning: EXTENDED_ARG before PUSH_NULL, which takes no argument [bytecode-extended-arg]
    # PREFIX-NEXT:   in g (line 7) at offset 4: PUSH_NULL
    # PREFIX-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 1 warning(s), 0 remark(s)

    # PUSH_NULL's (ignored) argument byte set to 5.
    # RUN: %mkcode marshal %s %t.argbyte --object ARGBYTE
    # RUN: %pyverify check %t.argbyte | FileCheck %s --check-prefix=ARGBYTE
    ARGBYTE = bc.patch(code, push_null, arg=5)
    # ARGBYTE:      {{.*}}.py:9:5: warning: PUSH_NULL takes no argument but its argument byte is 5 [bytecode-extended-arg]
    # ARGBYTE-NEXT:   in g (line 7) at offset 4: PUSH_NULL
    # ARGBYTE-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 1 warning(s), 0 remark(s)

    # Disabled, the warning is gone and the file is clean.
    # RUN: %pyverify check --checks=-bytecode-extended-arg %t.argbyte | FileCheck %s --check-prefix=OFF
    # OFF-NOT:  warning
    # OFF:      pyverify: 1 file(s), 1 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
