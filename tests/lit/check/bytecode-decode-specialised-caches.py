# Regression test for a bug found by this test and fixed since.
# Was: a specialised opcode in co_code is decoded with no inline caches, so
# the cache units that follow it are reported a second time, as "CACHE (0)
# at an instruction position". Every specialised opcode has the cache layout
# of its base opcode (LOAD_ATTR_INSTANCE_VALUE: LOAD_ATTR's 4 units), so
# those units are cache slots, and the one real error is the opcode itself.
#
# Raw marshal data, because marshal.dump() writes co_code deoptimised (see
# bytecode-decode.py).
# RUN: %python %S/../Inputs/breakcode.py %s %t.bin
# RUN: %not --code 1 %pyverify check %t.bin | FileCheck %s
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(x):
    return x.attr

if __name__ == "mkcode":
    code = f.__code__
    attr = bc.offset_of(code, "LOAD_ATTR")
    raw = bytearray(code.co_code)
    raw[attr] = bc.op("LOAD_ATTR_INSTANCE_VALUE")
    CODE = bc.raw_marshal(code, raw)
    # CHECK:      {{.*}}.py:17:12: error: specialised opcode LOAD_ATTR_INSTANCE_VALUE ({{[0-9]+}}) is not valid in co_code; it only exists in the adaptive copy [bytecode-decode]
    # CHECK-NEXT:   in f (line 16) at offset 4: LOAD_ATTR_INSTANCE_VALUE
    # CHECK-NOT:  CACHE (0) at an instruction position
    # CHECK:      pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
