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
# The None before the new handler's RAISE_VARARGS, written both ways (the
# rewriter writes it as the compiler does, LOAD_COMMON_CONSTANT 7).
ins = list(dis.get_instructions(co))
assert dis._common_constants[7] is None
consts = co.co_consts if None in co.co_consts else co.co_consts + (None,)
spellings = {"load_const": (dis.opmap["LOAD_CONST"], consts.index(None)),
             "common_constant": (dis.opmap["LOAD_COMMON_CONSTANT"], 7)}
sites = [a.offset for a, b in zip(ins, ins[1:])
         if a.opname in ("LOAD_CONST", "LOAD_COMMON_CONSTANT")
         and a.argval is None and b.opname == "RAISE_VARARGS"]
assert sites, "no None; RAISE_VARARGS in the resume function"
for name, (op, arg) in spellings.items():
    code = bytearray(co.co_code)
    for off in sites:
        code[off:off + 2] = bytes([op, arg])
    out = co.replace(co_code=bytes(code), co_consts=consts)
    open(os.path.join(sys.argv[1], name + ".marshal"), "wb").write(
        marshal.dumps(out))
