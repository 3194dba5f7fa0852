# Two withs sharing one handler (the rewriter's resume function of a break
# in a with in a loop: the prologue's re-entered with and the original's)
# are accepted when the handler's suppress path raises: it can then never
# suppress for the wrong one. On 3.15 the None such a path raises may be
# LOAD_COMMON_CONSTANT 7 (None), as 3.15's compiler writes every None;
# the suppress-path walk stepped over LOAD_CONST only, and the same code
# with LOAD_COMMON_CONSTANT None got a false with-handler-mismatch.
#
# REQUIRES: python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python315 %s %t
# RUN: %pyverify check --python-version=3.15 %t/load_const.marshal | FileCheck %s
# RUN: %pyverify check --python-version=3.15 %t/common_constant.marshal | FileCheck %s
# CHECK: pyverify: 1 file(s), 1 code object(s): 0 error(s)
import dis, marshal, os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "..", "..", "..", "python"),
                os.path.join(here, "..", "..", "python")]
import rewriter_cases as rc
from pyverify_rewriter import rewrite

co = rewrite(rc.CASES["break_in_with_loop"][0], 186).resume
ins = list(dis.get_instructions(co))
code = bytearray(co.co_code)
n = 0
for a, b in zip(ins, ins[1:]):
    if a.opname == "LOAD_CONST" and a.argval is None and b.opname == "RAISE_VARARGS":
        code[a.offset:a.offset + 2] = bytes([dis.opmap["LOAD_COMMON_CONSTANT"], 7])
        n += 1
assert n, "no LOAD_CONST None; RAISE_VARARGS in the resume function"
assert dis._common_constants[7] is None
open(os.path.join(sys.argv[1], "load_const.marshal"), "wb").write(marshal.dumps(co))
open(os.path.join(sys.argv[1], "common_constant.marshal"), "wb").write(
    marshal.dumps(co.replace(co_code=bytes(code))))
