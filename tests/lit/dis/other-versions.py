# dis reads CPython 3.12 and 3.13 bytecode (issue 15): a .pyc by its magic
# number, a raw marshal stream with --python-version. Each version's opcodes,
# inline caches and jumps (VersionOpcodes.h); arguments as that version's
# dis shows them (dis/argrepr-versions.py).
# tests/corpus/test_corpus.py, run by each interpreter on its own stdlib
# (ctest corpus-bytecode-stdlib-3.12/3.13), compares every instruction,
# table entry and position with that interpreter's dis.
#
# The code is real 3.12 bytecode (Inputs/v312code.py, as in
# check/other-python-version.py), so no 3.12 interpreter is needed.
if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.v312
    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from v312code import MARSHAL as CODE
    # RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(bytes.fromhex('cb0d0d0a') + bytes(12) + d)" %t.v312 %t.pyc312

# RUN: %pyverify dis --python-version=3.12 %t.v312 | FileCheck %s
# RUN: %pyverify dis %t.pyc312 | FileCheck %s
# CHECK:      Disassembly of <code object f, file "v312.py", line 1>:
# CHECK:         0 RESUME                   0
# CHECK:         2 LOAD_FAST                0
# CHECK-NEXT:    4 GET_ITER
# CHECK-NEXT: >> 6 FOR_ITER                 2
# CHECK-NEXT:   10 STORE_FAST               1
# CHECK:        12 JUMP_BACKWARD            4
# CHECK:     >> 14 END_FOR
# CHECK:        16 RETURN_CONST             0

# In the JSON output the jump targets are after the caches, as in 3.12 dis.
# RUN: %pyverify dis --python-version=3.12 --format=json %t.v312 | FileCheck %s --check-prefix=JSON
# JSON: "opname":"FOR_ITER","target":14
# JSON: "opname":"JUMP_BACKWARD","target":6

# Unasked, the stream is not shown as 3.11's (the default for marshal): it
# is another version's, an input error names it (check/marshal-version.py).
# RUN: %not --code 2 %pyverify dis %t.v312 2>&1 >/dev/null | FileCheck %s --check-prefix=NOTE
# NOTE: this looks like CPython 3.12 bytecode
# RUN: %not --code 2 %pyverify dis --python-version=2.7 %t.v312 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: error: --python-version=2.7: pyverify has opcode tables for 3.11, 3.12, 3.13, 3.14 and 3.15
