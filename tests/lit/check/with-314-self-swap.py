# 3.14 keeps a with's context in two slots: the __exit__ function and its
# self (LOAD_SPECIAL __exit__ pushes both). A rewriter that moves a single
# slot can pair one with's __exit__ function with another with's self.
# Mutant (tests/mutation, class swap-self): in
#     with a:
#         with b:
#             pass            # NOP
#             len(())
# the NOP, with [.., Ea, Sa, Eb, Sb] on the stack, becomes SWAP 3: the
# selves are exchanged, so the inner exit calls Eb(a, ...) and the outer
# one Ea(b, ...). Measured on CPython 3.14.2 (this test runs it): with
# one manager class the log is "enter a, enter b, exit a, exit b": a is
# exited while b is still active, and b is exited by a's exit call. The
# balance pass followed the function slot only and reported nothing (0
# errors; found by the 3.14 mutation corpus); the self slot now carries its
# context too (SlotTag::ExitSelf): the exit whose self is another active
# with's is context-exit-order, definite; where the swap is on one branch
# only (the mutant `branch`: `if x: pass` in a loop, mimetypes' shape),
# possible: the merged self is one with's or the other's.
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t | FileCheck %s --check-prefix=ORACLE
# ORACLE-LABEL: clean: enter a, enter b, exit b, exit a
# ORACLE-NEXT: mutant: enter a, enter b, exit a, exit b
# RUN: %pyverify check %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN: 0 error(s)
# RUN: %not --code 1 %pyverify check %t/swap_self.pyc | FileCheck %s
# CHECK: error: {{[0-9]+}} CALL 3 calls the __exit__ of the context entered at {{[0-9]+}} CALL with the self of the context entered at {{[0-9]+}} CALL{{.*}}[context-exit-order]
# RUN: %not --code 1 %pyverify check %t/branch.pyc | FileCheck %s --check-prefix=BRANCH
# BRANCH: error: possibly: {{[0-9]+}} CALL 3 calls the __exit__ of the context entered at {{[0-9]+}} CALL with a self that is another with's on some paths to here{{.*}}[context-exit-order]
import dis
import marshal
import opcode
import os
import sys

SRC = '''
def nested(a, b):
    with a:
        with b:
            pass
            len(())

def branch(a, b, xs):
    with a:
        for x in xs:
            with b:
                if x:
                    pass
                len(())
'''


class CM:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def __enter__(self):
        self.log.append("enter " + self.name)

    def __exit__(self, *exc):
        self.log.append("exit " + self.name)


def write(path, code):
    import importlib.util
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))


def run(co):
    log = []
    ns = {}
    exec(co, ns)
    ns["nested"](CM("a", log), CM("b", log))
    return ", ".join(log)


def main():
    out = sys.argv[1]
    mod = compile(SRC, "self_swap.py", "exec")
    fn = next(c for c in mod.co_consts if getattr(c, "co_name", "") == "nested")
    nop = next(i for i in dis.get_instructions(fn) if i.opname == "NOP")
    b = bytearray(fn.co_code)
    b[nop.offset:nop.offset + 2] = bytes([opcode.opmap["SWAP"], 3])
    mutant = mod.replace(co_consts=tuple(
        fn.replace(co_code=bytes(b)) if c is fn else c for c in mod.co_consts))
    print("clean:", run(mod))
    print("mutant:", run(mutant))
    write(os.path.join(out, "clean.pyc"), mod)
    write(os.path.join(out, "swap_self.pyc"), mutant)
    # branch: the NOP of `pass` (on the taken branch only) becomes SWAP 4:
    # [Ea, Sa, iter, Eb, Sb] -> the selves exchanged on that path.
    fn = next(c for c in mod.co_consts if getattr(c, "co_name", "") == "branch")
    nop = next(i for i in dis.get_instructions(fn) if i.opname == "NOP")
    b = bytearray(fn.co_code)
    b[nop.offset:nop.offset + 2] = bytes([opcode.opmap["SWAP"], 4])
    write(os.path.join(out, "branch.pyc"), mod.replace(co_consts=tuple(
        fn.replace(co_code=bytes(b)) if c is fn else c for c in mod.co_consts)))


main()
