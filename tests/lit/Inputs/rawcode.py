"""A code object with another CPython version's instruction bytes, written by
python3.11 for lit tests that need no 3.12/3.13 interpreter.

code(body, table, consts, stacksize, names, template) takes co_code and co_exceptiontable as
hex (as that version's compiler or an assembler run under it printed them)
and returns marshal data: a 3.11 code object with NOPs of the same length,
marshalled, then the NOPs replaced by the body (3.11's marshal de-specialises
its own opcode numbers, so other versions' bytes are patched in afterwards;
the marshal layout of a code object is the same in 3.11, 3.12 and 3.13). The
location table says "no location" for every code unit. Read the result with
--python-version=3.12 or 3.13 (3.11's bytes go through unchanged).
template: a 3.11 code object whose names, cells and free variables the result
keeps (default: a function without any).
"""
import marshal


def _template():
    pass


def code(body, table, consts=(None,), stacksize=8, names=(), template=None):
    body = bytes.fromhex(body)
    units = len(body) // 2
    lines = bytes([0x80 | (15 << 3) | 7]) * (units // 8)
    if units % 8:
        lines += bytes([0x80 | (15 << 3) | (units % 8 - 1)])
    nops = bytes([9, 0]) * units  # 3.11's NOP: kept by its marshal
    data = marshal.dumps((template or _template.__code__).replace(
        co_code=nops, co_linetable=lines, co_stacksize=stacksize,
        co_consts=tuple(consts), co_names=tuple(names),
        co_exceptiontable=bytes.fromhex(table)))
    assert data.count(nops) == 1
    return data.replace(nops, body)
