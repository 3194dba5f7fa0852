# Back-references nest code objects and constants without marshal's
# 2000-level cap (about one level per 90 or 2 input bytes). The JSON listing
# is written by recursion one level per level (the code tree's, then each
# constant's llvm::json value), so nodes past the limits are stubs: code
# objects at depth 1000 (MaxJSONCodeDepth) get "too_deep": true, constants
# 2000 levels deep (MaxMarshalDepth) are ["too_deep"]. Before, both crashed
# (stack overflow). The code tree is written out at ulimit -s 256 (a
# code object's children are written before its own members, whose frames
# are not held down the recursion; 1024 was needed while the tree was built
# first), the constants at the default (2000 levels need about 2 MiB).
#
# RUN: %python %s %t
# RUN: %pyverify dis --format=json %t.code.pyc | FileCheck %s --check-prefix=CODE
# RUN: %pyverify dis --format=json %t.code.pyc | %python -c "import sys; s = sys.stdin.read(); print(s.count('\"too_deep\":true'), s.count('\"qualname\"'))" | FileCheck %s --check-prefix=COUNT
# RUN: %pyverify dis --format=json --fields %t.const.pyc | %python -c "import sys; print(sys.stdin.read().count('\"too_deep\"'))" | FileCheck %s --check-prefix=CONST
#
# CODE: "too_deep":true
# The root, its tuple's 20,000 chained code objects once each as children of
# the chain down to depth 999, then one stub at depth 1000.
# COUNT: 1 1001
# Chunk 0 is 1000 levels deep; chunks 1 to 99 each reach level 2000 once.
# CONST: 99

import marshal
import struct
import sys

out = sys.argv[1]
template = marshal.dumps(compile("pass", "t.py", "exec"), 2)  # no refs
consts = b"(" + struct.pack("<i", 1) + b"N"
header = bytes.fromhex("a70d0d0a") + b"\0" * 12


def ref(i):
    return b"r" + struct.pack("<i", i)


# Code object k (back-reference slot k) holds code object k-1 in co_consts.
# The root's co_consts: a tuple of all of them, then the last (its child).
n = 20000
chain = bytearray()
for k in range(n):
    body = template.replace(consts, b"(" + struct.pack("<i", 1)
                            + (ref(k - 1) if k else b"N"))
    chain += bytes([body[0] | 0x80]) + body[1:]
root = template.replace(consts, b"(" + struct.pack("<i", 2) + b"("
                        + struct.pack("<i", n) + bytes(chain) + ref(n - 1))
open(out + ".code.pyc", "wb").write(header + root)

# A constant: 100 chunks of 1000 nested 1-tuples, each innermost item the
# previous chunk (100,000 levels); the root's constants are them all.
chunks = bytearray(b"[" + struct.pack("<i", 100))
for k in range(100):
    chunks += b"\xa9\x01" + b")\x01" * 999 + (ref(k - 1) if k else b"N")
root = template.replace(consts, b"(" + struct.pack("<i", 1) + bytes(chunks))
open(out + ".const.pyc", "wb").write(header + root)
