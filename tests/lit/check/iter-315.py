# 3.15's loops and delegations: GET_ITER takes an argument (0 a loop, 3 a
# yield from) and pushes the iterator and an index-or-NULL above it (a list
# or tuple stays in place with a tagged integer index, not an object);
# FOR_ITER reads the iterator under the index, POP_ITER and a break's two
# POP_TOPs drop both; SEND keeps its receiver and a NULL (PUSH_NULL after
# GET_AWAITABLE / GET_ANEXT) under the sent value and END_SEND drops both;
# None is LOAD_COMMON_CONSTANT 7, also in a with's exit sequence. CPython
# 3.15.0rc1's own output is clean; the mutant returns the index slot
# (measured: on a list the caller gets a tagged int that is no object,
# `type(r)` fails with SystemError; on an iterator it gets NULL).
#
# REQUIRES: python315
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python315 %s %t
# RUN: %pyverify check %t/clean.pyc | FileCheck %s --check-prefix=CLEAN
# CLEAN: pyverify: 1 file(s), 7 code object(s): 0 error(s), 0 warning(s), 0 remark(s)
#
# RUN: %not --code 1 %pyverify check %t/return_index.pyc | FileCheck %s --check-prefix=INDEX
# INDEX: error: {{.*}}RETURN_VALUE{{.*}}[null-stack-value]
#
# A tuple given to FOR_ITER with a NULL index (LOAD_CONST (1, 2);
# PUSH_NULL instead of LOAD_FAST xs; GET_ITER 0): FOR_ITER calls the
# tuple's tp_iternext, which is NULL (measured: 3.15.0rc1 dies, "null
# function or function signature mismatch", SIGSEGV). The iterator is the
# second slot from the top in 3.15 (SlotKinds.def, V315).
# RUN: %not --code 1 %pyverify check %t/tuple_iter.pyc | FileCheck %s --check-prefix=TUPLE
# TUPLE: error: {{.*}}FOR_ITER 3 takes the value #2 from the top, which is a tuple (pushed by LOAD_CONST at {{[0-9]+}}), where it needs an iterator{{.*}}[value-kind-mismatch]
#
# 3.15's compiler loads a loop's iterable with LOAD_FAST, not
# LOAD_FAST_BORROW (3.14.2 borrows it): GET_ITER keeps a list or tuple
# itself on the stack. A borrowed list whose local is overwritten in the
# loop is freed under FOR_ITER (measured: the next item is a freed object,
# "'' object has no attribute '__name__'"); borrow-outlives-local says so.
# RUN: %not --code 1 %pyverify check %t/borrowed_iterable.pyc | FileCheck %s --check-prefix=BORROW
# BORROW: error: {{.*}}STORE_FAST overwrites local 'xs' while the value {{[0-9]+}} LOAD_FAST_BORROW borrowed from it {{.*}}FOR_ITER takes that value after{{.*}}[borrow-outlives-local]
#
# The borrowed list kept by GET_ITER, its index dropped, its local
# overwritten, the list returned: LOAD_FAST_BORROW xs; GET_ITER 0; POP_TOP;
# LOAD_COMMON_CONSTANT None; STORE_FAST xs; RETURN_VALUE (measured: the
# list's item is finalized before the caller gets the list). The borrow is
# GET_ITER's output under the index too. Before, 0 errors.
# RUN: %not --code 1 %pyverify check %t/return_iterable.pyc | FileCheck %s --check-prefix=RETITER
# RETITER: error: {{.*}}STORE_FAST overwrites local 'xs' while the value {{[0-9]+}} LOAD_FAST_BORROW borrowed from it {{.*}}RETURN_VALUE takes that value after{{.*}}[borrow-outlives-local]
#
# A generator expression: 3.15 runs GET_ITER before RETURN_GENERATOR, and
# the entry covering the body keeps depth 2 over the POP_ITER, the
# LOAD_COMMON_CONSTANT None and the RETURN_VALUE after the loop, at live
# depth 0 and 1 (CPython's own exception_unwind asserts STACK_LEVEL() >=
# level: a trace function's raise there aborts a debug build; measured on
# the release build, the handler runs two slots low and the raise
# propagates, no reference lost). Reported, as for any code.
# RUN: %not --code 1 %pyverify check %t/genexpr.pyc | FileCheck %s --check-prefix=GENEXPR
# GENEXPR: error: {{.*}}POP_ITER is covered by entry {{.*}} [2] lasti, whose depth 2 is above the live stack depth 0 here{{.*}}[handler-depth-exceeds-stack]
import dis
import marshal
import opcode
import os
import sys

SRC = '''
def loop(xs):
    out = []
    for x in xs:
        if x:
            break
        out.append(x)
    return out

def nested(a, b):
    for x in a:
        for y in b:
            if x == y:
                return x
    return None

def comp(xs):
    return [x for x in xs if x], {x: 1 for x in xs}

def delegate(xs):
    yield from xs
    r = yield 1
    return r

async def aw(m, it):
    await m
    async with m as x:
        y = x
    async for y in it:
        pass
    return [z async for z in it]

def with_loop(m, xs):
    with m:
        for x in xs:
            pass
'''


def write(path, code):
    import importlib.util
    with open(path, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))


def main():
    out = sys.argv[1]
    mod = compile(SRC, "i315.py", "exec")
    write(os.path.join(out, "clean.pyc"), mod)
    write(os.path.join(out, "genexpr.pyc"),
          compile("def gen(xs):\n    return sum(x for x in xs)\n", "g315.py", "exec"))
    loop = next(c for c in mod.co_consts if getattr(c, "co_name", "") == "loop")
    b = bytearray(loop.co_code)
    k = next(i for i in dis.get_instructions(loop) if i.opname == "FOR_ITER")
    # FOR_ITER and its cache unit -> RETURN_VALUE; NOP
    b[k.offset:k.offset + 4] = bytes([opcode.opmap["RETURN_VALUE"], 0,
                                      opcode.opmap["NOP"], 0])
    consts = tuple(loop.replace(co_code=bytes(b)) if c is loop else c
                   for c in mod.co_consts)
    write(os.path.join(out, "return_index.pyc"), mod.replace(co_consts=consts))
    # tuple_iter: LOAD_FAST xs; GET_ITER 0 (and its cache) -> LOAD_CONST (1, 2);
    # PUSH_NULL; NOP.
    f = compile("def f(xs):\n    for x in xs:\n        pass\n", "t315.py",
                "exec").co_consts[0]
    ins = list(dis.get_instructions(f))
    load = ins[next(j for j, i in enumerate(ins) if i.opname == "GET_ITER") - 1]
    b = bytearray(f.co_code)
    fconsts = f.co_consts + ((1, 2),)
    b[load.offset:load.offset + 6] = bytes([
        opcode.opmap["LOAD_CONST"], len(fconsts) - 1, opcode.opmap["PUSH_NULL"], 0,
        opcode.opmap["NOP"], 0])
    write(os.path.join(out, "tuple_iter.pyc"),
          f.replace(co_code=bytes(b), co_consts=fconsts))
    # borrowed_iterable: the loop's LOAD_FAST xs -> LOAD_FAST_BORROW xs.
    f = compile("def f(xs, log):\n    for x in xs:\n        xs = None\n"
                "        log.append(x)\n", "b315.py", "exec").co_consts[0]
    ins = list(dis.get_instructions(f))
    load = ins[next(j for j, i in enumerate(ins) if i.opname == "GET_ITER") - 1]
    assert load.opname == "LOAD_FAST", load
    b = bytearray(f.co_code)
    b[load.offset] = opcode.opmap["LOAD_FAST_BORROW"]
    write(os.path.join(out, "borrowed_iterable.pyc"), f.replace(co_code=bytes(b)))
    op = opcode.opmap
    f = compile("def f(xs):\n    return xs\n", "r315.py", "exec").co_consts[0]
    code = bytes([op["RESUME"], 0, 0, 0, op["LOAD_FAST_BORROW"], 0,
                  op["GET_ITER"], 0, 0, 0, op["POP_TOP"], 0,
                  op["LOAD_COMMON_CONSTANT"], 7, op["STORE_FAST"], 0,
                  op["RETURN_VALUE"], 0])
    # Two location entries without a location (code 15): 8 units and 1.
    write(os.path.join(out, "return_iterable.pyc"),
          f.replace(co_code=code, co_linetable=bytes([0xFF, 0xF8]), co_stacksize=3))


main()
