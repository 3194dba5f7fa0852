# END_ASYNC_FOR's argument (3.14 on) counts back to the async for's
# END_SEND (SEND's target), for the monitoring BRANCH event only (it never
# jumps there): dis shows "from L3", that END_SEND's label. pyverify shows "from OFFSET" (as a
# jump's "to OFFSET"), and no jump target. Before, it showed "to OFFSET"
# (3.15.0rc1's contextlib is the first stdlib code with an async for:
# corpus-bytecode-stdlib-3.15 compared it).
#
# REQUIRES: python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python315 %s %t/a.pyc | FileCheck %s --check-prefix=DIS
# DIS: END_ASYNC_FOR 8 (from L[[L:[0-9]+]])
# RUN: %pyverify dis %t/a.pyc | FileCheck %s
# CHECK: SEND {{.*}}(to [[T:[0-9]+]])
# CHECK: END_ASYNC_FOR            8 (from [[T]])
import dis
import importlib.util
import marshal
import sys

SRC = """
async def f(xs):
    async for x in xs:
        pass
"""
co = compile(SRC, "a.py", "exec")
with open(sys.argv[1], "wb") as f:
    f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(co))
for i in dis.get_instructions(co.co_consts[0]):
    if i.opname == "END_ASYNC_FOR":
        print(i.opname, i.arg, f"({i.argrepr})")
