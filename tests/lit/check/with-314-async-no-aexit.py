# An async with whose __aexit__ is never called, in 3.14's two-slot shape.
# Mutants (tests/mutation, classes drop-load-exit and swap-exit-self, missed
# on asyncio.Barrier.reset / abort by the 3.14 mutation corpus):
#   no_aexit:  LOAD_SPECIAL __aexit__ -> COPY 1 (the manager in both exit
#              slots);
#   swapped:   the enter's SWAP 2 -> NOP (the exit's function and self slots
#              exchanged: the manager is in the function slot).
# Measured on CPython 3.14.2 (this test runs both): __aenter__ runs, the
# body runs, and the exit calls the manager instead of __aexit__ (TypeError);
# __aexit__ never runs: the context is entered and never exited. On the sync
# with the same mutations pyverify reported context-not-exited; on the async
# one only with-body-entered-without-enter / context-exit-without-enter (the
# await's END_SEND made the context active only through a pending __aexit__
# slot, and there was none). Now the call of __aenter__ enters it, as the
# sync one's call of __enter__ does, when no __aexit__ is loaded below it.
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t | FileCheck %s --check-prefix=ORACLE
# ORACLE-LABEL: clean: aenter, body, aexit
# ORACLE-NEXT: no_aexit: aenter, body, TypeError
# ORACLE-NEXT: swapped: aenter, body, TypeError
# RUN: %pyverify check %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN: 0 error(s)
# RUN: %not --code 1 %pyverify check %t/no_aexit.pyc | FileCheck %s
# RUN: %not --code 1 %pyverify check %t/swapped.pyc | FileCheck %s
# CHECK: [context-not-exited]
import dis
import marshal
import opcode
import os
import sys

SRC = '''
async def f(m, log):
    async with m:
        log.append("body")
'''


class ACM:
    def __init__(self, log):
        self.log = log

    async def __aenter__(self):
        self.log.append("aenter")

    async def __aexit__(self, *exc):
        self.log.append("aexit")


def write(path, code):
    import importlib.util
    with open(path, "wb") as fh:
        fh.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))


def run(mod):
    ns, log = {}, []
    exec(mod, ns)
    coro = ns["f"](ACM(log), log)
    try:
        coro.send(None)
    except StopIteration:
        pass
    except TypeError:
        log.append("TypeError")
    return ", ".join(log)


def mutant(mod, fn, edit):
    ins = list(dis.get_instructions(fn))
    k = next(j for j, i in enumerate(ins) if i.opname == "LOAD_SPECIAL")
    off, name, arg = edit(ins, k)
    b = bytearray(fn.co_code)
    b[off:off + 2] = bytes([opcode.opmap[name], arg])
    return mod.replace(co_consts=tuple(
        fn.replace(co_code=bytes(b)) if c is fn else c for c in mod.co_consts))


def main():
    out = sys.argv[1]
    mod = compile(SRC, "async_no_aexit.py", "exec")
    fn = next(c for c in mod.co_consts if getattr(c, "co_name", "") == "f")
    # ins[k] is LOAD_SPECIAL __aexit__, ins[k + 1] the SWAP 2.
    cases = [("clean", mod),
             ("no_aexit", mutant(mod, fn, lambda ins, k: (ins[k].offset, "COPY", 1))),
             ("swapped", mutant(mod, fn, lambda ins, k: (ins[k + 1].offset, "NOP", 0)))]
    for name, code in cases:
        print("%s: %s" % (name, run(code)))
        write(os.path.join(out, name + ".pyc"), code)


main()
