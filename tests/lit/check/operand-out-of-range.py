# operand-out-of-range (3.11): an argument that indexes a table the code
# object or the interpreter holds must be inside it, and a stack position
# must be one the instruction can reach. CPython checks none of these at run
# time (asserts only, compiled out of release builds). Each shape below was
# built with CodeType.replace and run in a subprocess of python3.11,
# python3.12 and python3.13 (the same shape in each version's opcodes);
# what the interpreter did is in the comment above it. The 3.12 and 3.13
# variants are operand-out-of-range-312-313.py.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc


def f(a=1, b=2):
    return a


if __name__ == "mkcode":
    import dis, opcode

    def asm(*ins):
        out = b""
        for it in ins:
            name, arg = (it, 0) if isinstance(it, str) else it
            out += bytes([opcode.opmap[name], arg])
            out += b"\0\0" * opcode._inline_cache_entries[opcode.opmap[name]]
        return out

    def code(*ins, consts=(None, 1), names=(), cellvars=(), freevars=()):
        c = f.__code__.replace(co_code=asm(*ins), co_consts=consts,
                               co_names=names, co_cellvars=cellvars,
                               co_freevars=freevars, co_stacksize=4,
                               co_exceptiontable=b"")
        return bc.fit_locations(c, len(c.co_code) // 2)

    R = ("RESUME", 0)
    # SIGSEGV (3.11, 3.12, 3.13; LOAD_CONST 2 too: one past the end).
    CONST = code(R, ("LOAD_CONST", 200), "RETURN_VALUE")
    # SIGSEGV (3.11, 3.12, 3.13; BINARY_OP 26 too, BINARY_OP 25 is fine):
    # binary_ops[oparg] is a call through a table of 26 function pointers.
    BINOP = code(R, ("LOAD_CONST", 1), ("LOAD_CONST", 1), ("BINARY_OP", 200),
                 "RETURN_VALUE")
    # LOAD_FAST 50 of 2 locals returned a code object from another frame;
    # LOAD_FAST 2 SIGSEGV (3.11). STORE_FAST 3 writes the value stack.
    FAST = code(R, ("LOAD_FAST", 50), "RETURN_VALUE")
    # LOAD_GLOBAL 2 (co_names[1] of 1): SIGSEGV in all three versions;
    # LOAD_GLOBAL 10 raised TypeError "unhashable type: 'dict'" (3.11, it
    # read some dict as the name) and SIGSEGV (3.12, 3.13).
    GLOBAL = code(R, ("LOAD_GLOBAL", 2), "RETURN_VALUE", names=("x",))
    # COMPARE_OP 6 and 50: SIGSEGV on ints (3.11, 3.12), SIGABRT (3.13).
    COMPARE = code(R, ("LOAD_CONST", 1), ("LOAD_CONST", 1), ("COMPARE_OP", 6),
                   "RETURN_VALUE")
    # LOAD_DEREF / STORE_DEREF / DELETE_DEREF on a plain local (holding an
    # int): SIGSEGV in every version; on a free variable it is fine.
    # LOAD_CLASSDEREF (3.11) and LOAD_FROM_DICT_OR_DEREF (3.12) of a plain
    # local in code exec'd with a locals dict that lacks the name: SIGSEGV;
    # of the free variable: fine.
    DEREF = code(("COPY_FREE_VARS", 1), R, ("LOAD_DEREF", 0), "RETURN_VALUE",
                 freevars=("fv",))
    # COPY_FREE_VARS 2 with one free variable (reads the closure past its
    # end) and COPY_FREE_VARS 0 with one (leaves its slot NULL, the LOAD_DEREF
    # reads it): SIGSEGV in every version.
    FREEVARS = code(("COPY_FREE_VARS", 2), R, ("LOAD_DEREF", 2),
                    "RETURN_VALUE", freevars=("fv",))
    # COPY 0 copies the stale slot above the top: returned 1 by chance on
    # 3.11, SIGSEGV on 3.12 and 3.13. SWAP 0 swaps the top with that slot.
    # LIST_APPEND 0 appends to the value it just popped: SIGSEGV everywhere.
    COPY0 = code(R, ("LOAD_CONST", 1), ("COPY", 0), "POP_TOP", "RETURN_VALUE")
    APPEND0 = code(R, ("BUILD_LIST", 0), ("LOAD_CONST", 1), ("LIST_APPEND", 0),
                   "RETURN_VALUE")
    # KW_NAMES of a non-tuple constant: SIGSEGV (3.11; 3.12 for a str). A
    # tuple longer than the call's arguments makes the positional count
    # negative: dict() said "expected at most 1 argument, got
    # 9223372036854775807" (3.11, 3.12), a read below the arguments.
    # Non-str names are not checked: dict() built {1: 7}, a Python function
    # raised TypeError.
    KWNOTUPLE = code(R, ("LOAD_GLOBAL", 1), ("LOAD_CONST", 1),
                     ("KW_NAMES", 2), ("PRECALL", 1), ("CALL", 1),
                     "RETURN_VALUE", consts=(None, 7, "k"), names=("dict",))
    KWLONG = code(R, ("LOAD_GLOBAL", 1), ("LOAD_CONST", 1), ("KW_NAMES", 2),
                  ("PRECALL", 1), ("CALL", 1), "RETURN_VALUE",
                  consts=(None, 7, ("k", "j")), names=("dict",))
    # KW_NAMES whose call does not follow it: the names stay set. A callee
    # doing KW_NAMES ('k', 'j', 'l'), LOAD_CONST, RETURN_VALUE made its
    # caller's dict(x) say "expected at most 1 argument, got
    # 9223372036854775806" (3.11, 3.12).
    KWNOCALL = code(R, ("KW_NAMES", 2), ("LOAD_CONST", 1), "RETURN_VALUE",
                    consts=(None, 7, ("k", "j", "l")))
    # Clean in every version, not reported: SWAP 1 (swaps the top with
    # itself), BUILD_SLICE 0 and 4 (build slice(a, b) like BUILD_SLICE 2,
    # popping 2 as our stack model does), RAISE_VARARGS 3 (SystemError "bad
    # RAISE_VARARGS oparg"), MAKE_CELL of a plain local (a cell of its
    # value), and the in-range twins above. (LOAD_CLOSURE of a plain local
    # pushes the local itself and does not crash by itself, but a function
    # made with it reads a non-cell as its free variable and crashes there:
    # value-kind-mismatch reports it, check/value-kind-mismatch.py.)
    CLEAN = code(R, ("LOAD_CONST", 1), ("LOAD_CONST", 0), ("SWAP", 1),
                 ("BUILD_SLICE", 4), ("MAKE_CELL", 0), ("LOAD_CLOSURE", 0),
                 ("LOAD_CONST", 1), ("LOAD_CONST", 1), ("BINARY_OP", 25),
                 ("COMPARE_OP", 5), ("LOAD_CONST", 1),
                 ("RAISE_VARARGS", 3))

# RUN: %mkcode marshal %s %t.const --object CONST
# RUN: %not --code 1 %pyverify check %t.const | FileCheck %s --check-prefix=CONST
# CONST: error: 2 LOAD_CONST 200 reads co_consts[200], but the code object has 2 constant(s): CPython does not check the index and reads past the tuple [operand-out-of-range]
# RUN: %mkcode marshal %s %t.binop --object BINOP
# RUN: %not --code 1 %pyverify check %t.binop | FileCheck %s --check-prefix=BINOP
# BINOP: error: 6 BINARY_OP 200: the operator 200 is outside 0..25: CPython calls through its table of binary operators with it (dis._nb_ops) [operand-out-of-range]
# RUN: %mkcode marshal %s %t.fast --object FAST
# RUN: %not --code 1 %pyverify check %t.fast | FileCheck %s --check-prefix=FAST
# FAST: error: 2 LOAD_FAST 50 uses localsplus slot 50, but the frame has 2 local, cell and free slot(s): CPython does not check the index and reads or writes the value stack or memory past it [operand-out-of-range]
# RUN: %mkcode marshal %s %t.global --object GLOBAL
# RUN: %not --code 1 %pyverify check %t.global | FileCheck %s --check-prefix=GLOBAL
# GLOBAL: error: 2 LOAD_GLOBAL 2 names co_names[1] (the argument >> 1), but the code object has 1 name(s): CPython does not check the index and reads past the tuple [operand-out-of-range]
# RUN: %mkcode marshal %s %t.compare --object COMPARE
# RUN: %not --code 1 %pyverify check %t.compare | FileCheck %s --check-prefix=COMPARE
# COMPARE: error: 6 COMPARE_OP 6: the comparison 6 is outside 0..5: CPython passes it to the rich comparison, whose operator tables it indexes (dis.cmp_op) [operand-out-of-range]
# RUN: %mkcode marshal %s %t.deref --object DEREF
# RUN: %not --code 1 %pyverify check %t.deref | FileCheck %s --check-prefix=DEREF
# DEREF: error: 4 LOAD_DEREF 0 uses localsplus slot 0 ('a') as a cell, but it is a plain local, neither a cell nor a free variable: CPython treats the object in it as a cell [operand-out-of-range]
# RUN: %mkcode marshal %s %t.freevars --object FREEVARS
# RUN: %not --code 1 %pyverify check %t.freevars | FileCheck %s --check-prefix=FREEVARS
# FREEVARS: error: 0 COPY_FREE_VARS 2 copies 2 free variable(s), but the code object has 1: CPython copies closure items past the tuple or leaves free-variable slots NULL [operand-out-of-range]
# RUN: %mkcode marshal %s %t.copy0 --object COPY0
# RUN: %not --code 1 %pyverify check %t.copy0 | FileCheck %s --check-prefix=COPY0
# COPY0: error: 4 COPY 0: the stack position 0 is below 1: CPython reads the stale slot above the top of the stack [operand-out-of-range]
# RUN: %mkcode marshal %s %t.append0 --object APPEND0
# RUN: %not --code 1 %pyverify check %t.append0 | FileCheck %s --check-prefix=APPEND0
# APPEND0: error: 6 LIST_APPEND 0: the stack position 0 is below 1: CPython takes the value it pops as the container [operand-out-of-range]
# RUN: %mkcode marshal %s %t.kwnotuple --object KWNOTUPLE
# RUN: %not --code 1 %pyverify check %t.kwnotuple | FileCheck %s --check-prefix=KWNOTUPLE
# KWNOTUPLE: error: 16 KW_NAMES 2 takes co_consts[2] as the call's keyword names, but it is not a tuple: CPython reads it as one [operand-out-of-range]
# RUN: %mkcode marshal %s %t.kwlong --object KWLONG
# RUN: %not --code 1 %pyverify check %t.kwlong | FileCheck %s --check-prefix=KWLONG
# KWLONG: error: 16 KW_NAMES 2 names 2 keyword argument(s), but the CALL 1 it is for passes 1 argument(s): CPython computes a negative positional count [operand-out-of-range]
# RUN: %mkcode marshal %s %t.kwnocall --object KWNOCALL
# RUN: %not --code 1 %pyverify check %t.kwnocall | FileCheck %s --check-prefix=KWNOCALL
# KWNOCALL: error: 2 KW_NAMES 2 is not directly followed by the call that takes its names (PRECALL, CALL): the names stay set for whichever call runs next, in this frame or its caller [operand-out-of-range]
# RUN: %mkcode marshal %s %t.clean --object CLEAN
# RUN: %pyverify check %t.clean | FileCheck %s --check-prefix=CLEAN
# CLEAN: 0 error(s), 0 warning(s)
