# 3.14's with statement: BEFORE_WITH is gone; the compiler emits
#   COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__;
#   CALL 0
# (the with keeps two slots: the __exit__ function and its self or NULL),
# exits with LOAD_CONST None x3; CALL 3 and its handler's table entry keeps
# depth exit slot + 2. CPython 3.14.2's own output is clean (but for loops
# and awaits in a with body, whose back edges it leaves uncovered:
# with-body-uncovered, tests/versions/check_with_body_coverage.py); the
# mutants are the faults of a rewriter that splices 3.14 code by 3.13's
# rules.
#
# REQUIRES: python314
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python314 %s %t
# RUN: %pyverify check %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN: pyverify: 1 file(s), 8 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
#
# The normal exit call dropped (its four slots popped instead):
# RUN: %not --code 1 %pyverify check %t/no_exit.pyc | FileCheck %s --check-prefix=NOEXIT
# NOEXIT: POP_TOP consumes the bound __exit__ of the context entered at {{[0-9]+}} CALL without calling it: the context is never exited [context-not-exited]
#
# The body's table entry at 3.13's depth (exit slot + 1):
# RUN: %not --code 1 %pyverify check %t/depth.pyc | FileCheck %s --check-prefix=DEPTH
# DEPTH: [with-handler-mismatch]
#
# __enter__ called with no __exit__ loaded below it (LOAD_SPECIAL __exit__
# made a second __enter__ load): entered, never exited.
# RUN: %not --code 1 %pyverify check %t/no_exit_load.pyc | FileCheck %s --check-prefix=NOLOAD
# NOLOAD: error:
import dis
import marshal
import opcode
import os
import sys

SRC = '''
def simple(m):
    with m as x:
        x.run()

def ret(m):
    with m:
        return 1

def nested(a, b):
    with a, b as y:
        if y:
            return y
    return None

def loop(ms):
    for m in ms:
        with m:
            pass

async def aw(m):
    async with m as x:
        return x

class Stack:
    # contextlib.ExitStack.close's shape: an ordinary call of three Nones,
    # byte for byte the with's exit sequence but for the method load before.
    def close(self):
        self.__exit__(None, None, None)
'''


def write(path, code):
    import importlib.util
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))


def units(co):
    return [(i.offset, i.opname, i.arg) for i in dis.get_instructions(co)]


def patch(co, edits):
    b = bytearray(co.co_code)
    for off, name, arg in edits:
        b[off] = opcode.opmap[name]
        b[off + 1] = arg
    return co.replace(co_code=bytes(b))


def in_module(mod, name, new):
    consts = tuple(new if getattr(c, "co_name", None) == name else c
                   for c in mod.co_consts)
    return mod.replace(co_consts=consts)


def main():
    out = sys.argv[1]
    mod = compile(SRC, "w314.py", "exec")
    write(os.path.join(out, "clean.pyc"), mod)
    simple = next(c for c in mod.co_consts if getattr(c, "co_name", "") == "simple")
    ins = list(dis.get_instructions(simple))
    # no_exit: LOAD_CONST None x3; CALL 3 -> POP_TOP; NOP ...: the first
    # POP_TOP drops the self, the one after the call drops the function.
    k = next(j for j, i in enumerate(ins) if i.opname == "CALL" and i.arg == 3)
    edits = [(ins[k - 3].offset, "POP_TOP", 0), (ins[k - 2].offset, "NOP", 0),
             (ins[k - 1].offset, "NOP", 0)]
    # The call and its inline caches become NOPs.
    edits += [(ins[k].offset + 2 * u, "NOP", 0)
              for u in range(1 + opcode._inline_cache_entries["CALL"])]
    write(os.path.join(out, "no_exit.pyc"), in_module(mod, "simple", patch(simple, edits)))
    # depth: the body's entry at depth exit slot + 1.
    table = bytearray(simple.co_exceptiontable)
    # First entry: start, size, target, depth << 1 | lasti, each a varint
    # whose first byte has bit 7 (0x80) set.
    starts = [j for j, b in enumerate(table) if b & 0x80]
    first, second = starts[0], starts[1] if len(starts) > 1 else len(table)
    entry = table[first:second]
    # The fourth varint of the entry is depth/lasti: decrement its depth.
    vals, pos = [], 0
    while pos < len(entry):
        v = entry[pos] & 63
        while entry[pos] & 64:
            pos += 1
            v = (v << 6) | (entry[pos] & 63)
        vals.append((pos, v))
        pos += 1
    p3, dl = vals[3]
    assert dl >> 1 == 2, dl
    entry[p3] = (entry[p3] & ~63) | ((dl - 2) & 63)
    table[first:second] = entry
    write(os.path.join(out, "depth.pyc"),
          in_module(mod, "simple", simple.replace(co_exceptiontable=bytes(table))))
    # no_exit_load: LOAD_SPECIAL __exit__ (1) -> LOAD_SPECIAL __enter__ (0).
    ls = next(i for i in ins if i.opname == "LOAD_SPECIAL" and i.arg == 1)
    write(os.path.join(out, "no_exit_load.pyc"),
          in_module(mod, "simple", patch(simple, [(ls.offset, "LOAD_SPECIAL", 0)])))


main()
