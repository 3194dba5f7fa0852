# Where 3.13 and 3.14 look an exception up when a CALL's callee is a Python
# function (its frame pushed inline) and raises: at the code unit BEFORE the
# CALL (the caller resumes with its instruction pointer at the CALL and
# exception_unwind looks up INSTR_OFFSET() - 1), not at the CALL itself; a C
# callee's raise is looked up at the CALL. Measured (tests run 2026-12-05 on
# 3.11.2, 3.12.1, 3.13.0, 3.14.2: a try body's CALL of a raising function,
# the table entry split around the CALL or the unit before it): 3.11 and
# 3.12 look both up at the CALL; 3.13 and 3.14 look a Python callee's raise
# up one unit before. Here a with body's `NOP; CALL 0` (LOAD_GLOBAL g + NULL
# before them) keeps the CALL covered and leaves the NOP outside, as
# CPython's compiler may leave a NOP: g raises, the exception is looked up at
# the NOP, and __exit__ never runs (the log is ['enter']). pyverify's raise
# model looks every raise of a CALL up at the CALL, and checked this clean (0
# errors): a soundness hole. Now the table check exception-table-callee-split
# (the traits column CalleeRaiseLookupBefore) reports every instruction that
# may run a Python callee whose code unit before it is covered differently:
# the passes' lookup is then not CPython's. CPython 3.13's, 3.14's and 3.15's
# stdlibs have none (117,816 code objects).
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t/lookup.pyc | FileCheck %s --check-prefix=ORACLE
# ORACLE: log: ['enter']
# RUN: %not --code 1 %pyverify check %t/lookup.pyc | FileCheck %s
# CHECK: error: CALL {{[0-9]+}} is covered by entry '{{.*}}' (table byte {{[0-9]+}}), the code unit before it by no entry: an exception its Python callee raises is looked up at the unit before (3.13+){{.*}}[exception-table-callee-split]
# CHECK: 1 error(s)
import dis, marshal, opcode, os, sys, importlib.util
from dis import _parse_exception_table
SRC = '''
def f(a):
    with a:
        g(1)
'''
log = []
class CM:
    def __enter__(s): log.append("enter")
    def __exit__(s, *e): log.append("exit")
def g(*args):
    raise RuntimeError("g")
# The table split: tests/versions/callee_lookup.py's.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "versions"))
from callee_lookup import uncover  # noqa: E402


mod = compile(SRC, "lookup.py", "exec")
f = mod.co_consts[0] if hasattr(mod.co_consts[0], "co_code") else next(c for c in mod.co_consts if hasattr(c, "co_code"))
ins = list(dis.get_instructions(f))
k = next(j for j, i in enumerate(ins) if i.opname == "CALL" and i.arg == 1)
arg = ins[k - 1]           # the constant 1 (LOAD_SMALL_INT / LOAD_CONST)
b = bytearray(f.co_code)
b[arg.offset:arg.offset + 2] = bytes([opcode.opmap["NOP"], 0])
b[ins[k].offset + 1] = 0   # CALL 1 -> CALL 0: g() after LOAD_GLOBAL g + NULL
f2 = uncover(f.replace(co_code=bytes(b)), arg.offset, arg.offset + 2)

fn = type(lambda: 0)(f2, {"g": g})
try:
    fn(CM())
except RuntimeError:
    pass
print("log:", log)
mod2 = mod.replace(co_consts=tuple(f2 if c is f else c for c in mod.co_consts))
open(sys.argv[1], "wb").write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(mod2))
