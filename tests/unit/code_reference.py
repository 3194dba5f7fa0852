"""Compile small modules with python3.11 and print what CPython says about them.

CodeReferenceTest reads this JSON, parses each module's marshal bytes with
pyverify's reader and decoders, and compares every field with what CPython
reports here: code object attributes, repr() of the constants, the decoded
instructions (dis.get_instructions), the exception table
(dis._parse_exception_table) and co_positions(). Each snippet exercises
something the hand-made unit tests cannot easily reach: EXTENDED_ARG from
real argument sizes, compiler-built exception tables, every location form.
"""

import dis
import json
import marshal
import re
import sys
import types

SNIPPETS = {
    "constants": """
FLOATS = (0.1, 1e16, 1e-05, 123456789.0, -0.0, 1e999, -1e999, 2.5, 1/3, 1e22,
          5e-324, 1.5e300, 100.0, 0.0001, 12345678901234567.0)
COMPLEX = (1j, 1+2j, -0.0-0j, -0j, -(-1+0j), -(0.0+0j), 1-0j, 1.5-2.5j, 1e16+1j, 0j, -1-1j, 1e999j)
STRS = ('abc', "it's", 'a"b', 'a\\'b"c', '\\n\\t\\\\', '\\x01\\x7f', 'h\\u00e9', '')
BYTES = (b'', b"it's", b'\\x00\\xff', b'a"b', b'\\n')
INTS = (0, -1, 2**31 - 1, -2**31, 2**31, 2**62, 2**63, 10**30,
        -1267650600228229401496703205376)
NESTED = ((1,), ((),), (None, True, False, ...), 'x')
def f(x):
    return x in {1, 2, 3}, x in frozenset(), x not in {'a'}
""",
    "control_flow": """
def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        while total < i:
            total += 1
            if total > 100:
                break
        else:
            total -= 1
    return total if total else None

def matching(v):
    match v:
        case [a, b, *rest]:
            return a + b
        case {"k": x}:
            return x
        case int() | float() if v > 0:
            return v
        case _:
            return None
""",
    "exceptions": """
import contextlib
def f(cm, g):
    try:
        with cm as x:
            g(x)
    except (ValueError, KeyError) as e:
        g(e)
    finally:
        g(None)
    try:
        g(1)
    except* TypeError:
        pass
    except* OSError as eg:
        g(eg)

async def h(acm, it):
    async with acm as y:
        async for z in it:
            await y(z)
    return [w async for w in it]

def gen(n):
    try:
        yield from range(n)
    finally:
        yield -1
""",
    "closures": """
def outer(a, /, b, *args, c, d=4, **kw):
    e = 5
    def inner(f):
        nonlocal e
        e += f
        return a + e + (lambda: b)()
    class K:
        def m(self):
            return super().m() + c
    return inner, K, [a for a in args], {k: v for k, v in kw.items()}
""",
    "extended_arg": "def big(x):\n"
    + "    y = 0\n"
    + "".join(f"    y += {i}.5 if x else {i}\n" for i in range(300))
    + "    return y\n",
    "many_names": "def names():\n"
    + "".join(f"    v{i} = {i}\n" for i in range(300))
    + "    return " + " + ".join(f"v{i}" for i in range(0, 300, 7)) + "\n",
    "locations": """
x = (1 +
     2)
y = [
    x,
    x
    ]
def long_line(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa):
    return aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa + aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
s = 'h\u00e9llo' + str(x)
"""
    + "\n" * 300
    + "z = x\n",
}

ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def code_repr(c):
    # Our Value::repr drops the address, which changes between runs.
    return ADDRESS.sub("", repr(c))


def pre_order(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from pre_order(c)


def describe(co):
    insts = []
    for i in dis.get_instructions(co):
        if i.opname == "EXTENDED_ARG":
            continue
        target = i.argval if i.opcode in dis.hasjrel else None
        insts.append([i.offset, i.opname, i.arg, target])
    table = [
        [e.start, e.end, e.target, e.depth, e.lasti]
        for e in dis._parse_exception_table(co)
    ]
    return {
        "qualname": co.co_qualname,
        "name": co.co_name,
        "filename": co.co_filename,
        "firstlineno": co.co_firstlineno,
        "argcount": co.co_argcount,
        "posonlyargcount": co.co_posonlyargcount,
        "kwonlyargcount": co.co_kwonlyargcount,
        "stacksize": co.co_stacksize,
        "flags": co.co_flags,
        "nlocals": co.co_nlocals,
        "names": list(co.co_names),
        "varnames": list(co.co_varnames),
        "cellvars": list(co.co_cellvars),
        "freevars": list(co.co_freevars),
        "consts": [code_repr(c) for c in co.co_consts],
        "code": co.co_code.hex(),
        "exceptiontable": co.co_exceptiontable.hex(),
        "table": table,
        "positions": [list(p) for p in co.co_positions()],
        "instructions": insts,
    }


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit("code_reference.py needs python3.11, got " + sys.version)
    out = {}
    for name, src in SNIPPETS.items():
        co = compile(src, name + ".py", "exec")
        out[name] = {
            "marshal": marshal.dumps(co).hex(),
            "code_objects": [describe(c) for c in pre_order(co)],
        }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
