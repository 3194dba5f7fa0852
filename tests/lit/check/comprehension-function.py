# The function TorchDynamo builds for a graph break in a 3.12+ inlined
# comprehension (`_build_comprehension_fn`, torch/_dynamo, 2026): RESUME,
# the comprehension's stack rebuilt from arguments (LOAD_FAST ___stackN, a
# PUSH_NULL for a saved local that was unbound), the comprehension's own
# instructions from its FOR_ITER to the store of its result, then
# LOAD_FAST result, RETURN_VALUE. Dynamo copies those instructions with
# their exception-table entries removed (`_copy_comprehension_bytecode` sets
# `exn_tab_entry = None`): clean on 3.12 and 3.13, and it runs.
#
# An emitter that keeps the copied entries (the comprehension's cleanup
# handler appended) covers FOR_ITER but not the prologue's LOAD_FAST just
# before it. From 3.13 an exception a generator raises inside FOR_ITER is
# looked up at that unit (exception-table-callee-split): measured here, the
# handler runs on 3.12.1 and is skipped on 3.13.0 when the iterator is a
# generator, while an iterator whose __next__ is a Python method's call
# from C is handled on both.
#
# REQUIRES: python312, python313
# RUN: rm -rf %t && mkdir -p %t
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python312 %s %t | FileCheck %s --check-prefix=RUN312
# RUN312: 3.12 stripped saved [11, 21] null [11, 21]
# RUN312: 3.12 kept: generator handled, class iterator handled
# RUN: %pyverify check --python-version=3.12 %t/stripped-saved-3.12.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check --python-version=3.12 %t/stripped-null-3.12.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check --python-version=3.12 %t/kept-3.12.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: env PYTHONDONTWRITEBYTECODE=1 %python313 %s %t | FileCheck %s --check-prefix=RUN313
# RUN313: 3.13 stripped saved [11, 21] null [11, 21]
# RUN313: 3.13 kept: generator escaped, class iterator handled
# RUN: %pyverify check --python-version=3.13 %t/stripped-saved-3.13.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: %pyverify check --python-version=3.13 %t/stripped-null-3.13.marshal | FileCheck %s --check-prefix=CLEAN
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t/kept-3.13.marshal | FileCheck %s --check-prefix=SPLIT
# CLEAN: 0 error(s), 0 warning(s)
# SPLIT: error: FOR_ITER {{[0-9]+}} is covered by entry '{{.*}}' (table byte {{[0-9]+}}), the code unit before it by no entry: an exception its Python callee raises is looked up at the unit before (3.13+){{.*}}[exception-table-callee-split]
# SPLIT: 1 error(s)

import marshal
import os
import sys
import types

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "python"))
from pyverify_rewriter import asm  # noqa: E402
from pyverify_rewriter.asm import Instr, Local  # noqa: E402


def g(v):
    return v * 10


def f(xs, y):
    r = [g(a) + y for a in xs]
    return r


ARGS = ["__nested_resume_fns", "__nested_frame_values", "y",
        "___stack0", "___stack1", "___stack2"]
VARNAMES = ARGS + ["a", "r"]


def copied(instrs, keep_entries, handler=None):
    """Copies of INSTRS, jumps among them retargeted; entries dropped, kept,
    or sent to HANDLER."""
    out = [i.copy() for i in instrs]
    by_id = {id(a): b for a, b in zip(instrs, out)}
    for c in out:
        if c.target is not None and id(c.target) in by_id:
            c.target = by_id[id(c.target)]
        if not keep_entries:
            c.entry = None
        elif handler is not None and c.entry is not None:
            c.entry = asm.Entry(handler, c.entry.depth, c.entry.lasti)
    return out


def build(instrs, consts=None):
    co = f.__code__
    res = asm.assemble(instrs, {n: i for i, n in enumerate(VARNAMES)},
                       co.co_firstlineno)
    return co.replace(co_code=res.code, co_exceptiontable=res.exceptiontable,
                      co_linetable=res.linetable, co_argcount=len(ARGS),
                      co_varnames=tuple(VARNAMES), co_nlocals=len(VARNAMES),
                      co_stacksize=co.co_stacksize + 2,
                      co_consts=consts or co.co_consts)


def main(out):
    v = "%d.%d" % sys.version_info[:2]
    ins = asm.decode(f.__code__)
    names = [i.name for i in ins]
    first = names.index("FOR_ITER")
    last = next(k for k in range(names.index("END_FOR"), len(ins))
                if ins[k].name == "STORE_FAST" and ins[k].arg == "r")
    body = ins[first:last + 1]
    # The comprehension's stack at its FOR_ITER: the saved `a`, the list,
    # the iterator (bottom to top).
    saved = [Instr("LOAD_FAST", Local("___stack2")),
             Instr("LOAD_FAST", Local("___stack1")),
             Instr("LOAD_FAST", Local("___stack0"))]
    null = [Instr("PUSH_NULL")] + saved[1:]
    line = [v, "stripped"]
    for tag, stack in (("saved", saved), ("null", null)):
        co = build([Instr("RESUME", 0)] + stack + copied(body, False)
                   + [Instr("LOAD_FAST", Local("r")), Instr("RETURN_VALUE")])
        with open(os.path.join(out, "stripped-%s-%s.marshal" % (tag, v)),
                  "wb") as fh:
            marshal.dump(co, fh)
        fn = types.FunctionType(co, globals())
        line += [tag, repr(fn(None, None, 1, iter([1, 2]), [], 0))]
    print(" ".join(line))

    # The entries kept, to a handler that returns "handled" (the stack under
    # it is dropped with the frame).
    handler = [Instr("LOAD_CONST", 0), Instr("RETURN_VALUE")]
    consts = ("handled",) + f.__code__.co_consts[1:]
    co = build([Instr("RESUME", 0)] + [i.copy() for i in saved]
               + copied(body, True, handler[0])
               + [Instr("LOAD_FAST", Local("r")), Instr("RETURN_VALUE")]
               + handler, consts)
    with open(os.path.join(out, "kept-%s.marshal" % v), "wb") as fh:
        marshal.dump(co, fh)
    fn = types.FunctionType(co, globals())

    def gen():
        yield 1
        raise ValueError("the generator's")

    class It:
        def __iter__(self):
            return self

        def __next__(self):
            raise ValueError("__next__'s")

    def outcome(it):
        seen = set()
        for _ in range(20):  # past 3.13's specialisation of FOR_ITER
            try:
                seen.add(fn(None, None, 1, it(), [], 0))
            except ValueError:
                seen.add("escaped")
        return "/".join(sorted(seen))
    print("%s kept: generator %s, class iterator %s"
          % (v, outcome(gen), outcome(It)))


if __name__ == "__main__":
    main(sys.argv[1])
