# dis reads CPython 3.12 and 3.13 bytecode (issue 15): a .pyc by its magic
# number, a raw marshal stream with --python-version. Each version's opcodes,
# inline caches and jumps (VersionOpcodes.h); arguments are shown raw.
# tests/corpus/test_corpus.py, run by each interpreter on its own stdlib
# (ctest corpus-bytecode-stdlib-3.12/3.13), compares every instruction,
# table entry and position with that interpreter's dis.
#
# The code below is python3.12's marshal.dumps(compile(SRC, "v312.py",
# "exec")), SRC: "def f(xs):\n    for x in xs:\n        pass\n    return
# None\n" (the same as check/other-python-version.py), so no 3.12
# interpreter is needed.
if __name__ == "mkcode":
    # RUN: %mkcode marshal %s %t.v312
    CODE = bytes.fromhex(
        "630000000000000000000000000100000000000000f30a0000009700640084005a"
        "0079012902630100000000000000000000000200000003000000f3120000009700"
        "7c0044005d0200007d018c040400790029014ea9002902da027873da0178730200"
        "00002020fa07763331322e7079da016672060000000100000073170000008000d8"
        "0d0ff20001050d8801d8080cf00301050de00b0ff3000000004e29017206000000"
        "720200000072070000007205000000fa083c6d6f64756c653e7208000000010000"
        "00730a000000f003010101f3020301107207000000")
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

# Read as 3.11 (the default for marshal), the same bytes are another
# version's: the note says so (check/other-python-version.py).
# RUN: %pyverify dis %t.v312 2>&1 >/dev/null | FileCheck %s --check-prefix=NOTE
# NOTE: this looks like CPython 3.12 bytecode
# RUN: %not --code 2 %pyverify dis --python-version=2.7 %t.v312 2>&1 | FileCheck %s --check-prefix=BAD
# BAD: error: --python-version=2.7: pyverify has opcode tables for 3.11, 3.12 and 3.13
