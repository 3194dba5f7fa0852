"""Break real CPython 3.11 code objects for pyverify's lit tests.

A lit test defines ordinary functions, then (under ``if __name__ ==
"mkcode":``) takes one's ``__code__`` and returns a broken copy built with
``types.CodeType.replace``: a shrunk ``co_stacksize``, an exception-table
entry with a raised depth or a target in the caches, a patched opcode, ...
``mkcode.py marshal`` then writes the copy for ``pyverify check``.  Nothing
here validates: producing invalid code is the point, and CPython 3.11's
``replace`` does not check either.

Conventions, the same as ``dis`` and pyverify's output:

* every offset is a **byte** offset into ``co_code``;
* an exception-table entry is ``Entry(start, end, target, depth, lasti)``
  with ``end`` exclusive (``dis`` prints ``end - 2``);
* every helper returns a new code object and leaves its argument alone.

Import from a test file with::

    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    import breakcode as bc

marshal.dump() writes co_code *deoptimised* (specialised opcodes become
their base opcode, unknown opcodes CACHE, inline caches zero), so a broken
instruction stream that CodeType.replace accepts may not survive the trip to
disk.  For those, raw_marshal() builds the marshal bytes directly, and this
module run as a script writes them:

    breakcode.py SRC OUT [--object NAME]   like ``mkcode.py marshal``, but
                                           NAME may also be bytes (written
                                           verbatim)
    breakcode.py --self-test               check the codecs against dis
"""
import dataclasses
import dis
import marshal
import opcode
import struct
import sys
import types

__all__ = [
    "Entry", "encode_varint", "decode_varints", "encode_exception_table",
    "decode_exception_table", "entries", "with_entries", "set_entry",
    "drop_entry", "set_stacksize", "offsets", "offset_of", "instruction_at",
    "patch", "replace_bytes", "insert_bytes", "fit_locations",
    "raw_marshal", "unit", "op", "child",
]

# --- exception-table codec ------------------------------------------------
#
# co_exceptiontable is a list of entries, each four unsigned varints in code
# units: start, length, target, (depth << 1) | lasti.  A varint is 6-bit
# chunks, most significant first; 0x40 on every chunk but the last means
# "another chunk follows"; 0x80 marks the first byte of each entry.

START_BIT = 0x80
CONTINUE_BIT = 0x40


def encode_varint(value, first=False, min_chunks=1):
    """Encode one value (>= 0) as a varint.

    ``first`` sets the 0x80 entry-start bit on the first byte.  ``min_chunks``
    > 1 pads with leading zero chunks: the non-minimal encoding CPython
    accepts but never writes (exception-table-noncanonical).
    """
    if value < 0:
        raise ValueError(f"varint value {value} is negative")
    chunks = []
    while True:
        chunks.append(value & 0x3F)
        value >>= 6
        if not value:
            break
    while len(chunks) < min_chunks:
        chunks.append(0)
    chunks.reverse()
    out = bytearray()
    for i, c in enumerate(chunks):
        b = c
        if i + 1 < len(chunks):
            b |= CONTINUE_BIT
        if first and i == 0:
            b |= START_BIT
        out.append(b)
    return bytes(out)


def decode_varints(data):
    """Split exception-table bytes into a flat list of varint values.

    Lenient (it ignores the 0x80 bits, as CPython does); used to read tables
    the compiler wrote.  Raises ValueError on a truncated varint.
    """
    values, pos = [], 0
    while pos < len(data):
        b = data[pos]
        pos += 1
        v = b & 0x3F
        while b & CONTINUE_BIT:
            if pos == len(data):
                raise ValueError("truncated varint at the end of the table")
            b = data[pos]
            pos += 1
            v = (v << 6) | (b & 0x3F)
        values.append(v)
    return values


@dataclasses.dataclass
class Entry:
    """One exception-table entry in byte offsets; ``end`` is exclusive."""
    start: int
    end: int
    target: int
    depth: int
    lasti: bool = False

    def __str__(self):  # dis notation; pyverify's "(empty)" for length 0
        rng = (f"{self.start} to {self.start} (empty)"
               if self.end <= self.start else
               f"{self.start} to {self.end - 2}")
        return (f"{rng} -> {self.target} "
                f"[{self.depth}]{' lasti' if self.lasti else ''}")


def encode_exception_table(table):
    """Encode a list of Entry the way CPython's assembler does (minimal)."""
    out = bytearray()
    for e in table:
        if e.start % 2 or e.end % 2 or e.target % 2:
            raise ValueError(f"entry {e} has an odd byte offset")
        out += encode_varint(e.start // 2, first=True)
        out += encode_varint((e.end - e.start) // 2)
        out += encode_varint(e.target // 2)
        out += encode_varint((e.depth << 1) | int(bool(e.lasti)))
    return bytes(out)


def decode_exception_table(data):
    """Decode co_exceptiontable bytes into a list of Entry."""
    values = decode_varints(data)
    if len(values) % 4:
        raise ValueError("exception table is not a whole number of entries")
    table = []
    for i in range(0, len(values), 4):
        start, length, target, dl = values[i:i + 4]
        table.append(Entry(2 * start, 2 * (start + length), 2 * target,
                           dl >> 1, bool(dl & 1)))
    return table


def entries(code):
    """The decoded exception table of ``code``."""
    return decode_exception_table(code.co_exceptiontable)


def with_entries(code, table):
    """``code`` with its exception table replaced by ``table`` (Entry list)
    or by raw bytes."""
    if not isinstance(table, (bytes, bytearray)):
        table = encode_exception_table(table)
    return code.replace(co_exceptiontable=bytes(table))


def set_entry(code, index, **fields):
    """Change fields (start, end, target, depth, lasti) of entry ``index``."""
    table = entries(code)
    table[index] = dataclasses.replace(table[index], **fields)
    return with_entries(code, table)


def drop_entry(code, index):
    """Remove entry ``index`` from the exception table."""
    table = entries(code)
    del table[index]
    return with_entries(code, table)


def set_stacksize(code, size):
    """``code`` with co_stacksize = ``size``."""
    return code.replace(co_stacksize=size)


# --- instructions ---------------------------------------------------------

def op(name):
    """Opcode number of ``name`` (a base opcode or a specialised one)."""
    if name in opcode.opmap:
        return opcode.opmap[name]
    return dis._all_opmap[name]  # specialised opcodes (3.11)


def unit(name, arg=0):
    """Two bytes: one code unit ``name arg`` (``arg`` < 256)."""
    return bytes([op(name) if isinstance(name, str) else name, arg])


def offsets(code, opname):
    """Byte offsets of every ``opname`` instruction in ``code``, in order
    (the offset of the opcode unit, after any EXTENDED_ARG)."""
    return [i.offset for i in dis.get_instructions(code)
            if i.opname == opname]


def offset_of(code, opname, nth=0):
    """Byte offset of the ``nth`` ``opname`` (negative counts from the end);
    raises LookupError if there is none."""
    found = offsets(code, opname)
    try:
        return found[nth]
    except IndexError:
        raise LookupError(f"{code.co_qualname} has no {opname} #{nth} "
                          f"(found {len(found)})") from None


def instruction_at(code, offset):
    """The dis.Instruction at byte ``offset``."""
    for i in dis.get_instructions(code):
        if i.offset == offset:
            return i
    raise LookupError(f"no instruction at byte {offset}")


def patch(code, offset, opname=None, arg=None):
    """Overwrite the opcode byte and/or argument byte of the unit at byte
    ``offset``; ``opname`` is a name or a number.  Caches are left alone, so
    patching to an opcode with a different cache count changes how the rest
    decodes.  Through marshal.dump only base opcodes survive, and an opcode
    with more inline caches than the old one has the units after it zeroed;
    use raw_marshal for anything else."""
    b = bytearray(code.co_code)
    if opname is not None:
        b[offset] = op(opname) if isinstance(opname, str) else opname
    if arg is not None:
        b[offset + 1] = arg
    return code.replace(co_code=bytes(b))


def replace_bytes(code, offset, data):
    """Overwrite ``len(data)`` bytes of co_code at ``offset`` (same length)."""
    b = bytearray(code.co_code)
    if offset + len(data) > len(b):
        raise ValueError("replace_bytes would grow the code; use insert_bytes")
    b[offset:offset + len(data)] = data
    return code.replace(co_code=bytes(b))


# --- location table (kept consistent when the code changes size) ----------

def _svarint(v):
    return _uvarint((-v << 1) | 1 if v < 0 else v << 1)


def _uvarint(v):  # 6-bit chunks, least significant first (location table)
    out = bytearray()
    while v >= 0x40:
        out.append(0x40 | (v & 0x3F))
        v >>= 6
    out.append(v)
    return bytes(out)


def _encode_locations(code, positions):
    """A valid co_linetable for per-unit ``positions`` (4-tuples or None):
    one long-form (or no-location) entry per unit."""
    out, line = bytearray(), code.co_firstlineno
    for pos in positions:
        if pos is None or pos[0] is None:
            out.append(0x80 | (15 << 3))  # no location, 1 unit
            continue
        ln, end_ln, col, end_col = pos
        out.append(0x80 | (14 << 3))  # long form, 1 unit
        out += _svarint(ln - line)
        out += _uvarint((end_ln if end_ln is not None else ln) - ln)
        out += _uvarint(col + 1 if col is not None else 0)
        out += _uvarint(end_col + 1 if end_col is not None else 0)
        line = ln
    return bytes(out)


def insert_bytes(code, offset, data):
    """Insert ``data`` (whole code units) into co_code at byte ``offset``.

    Keeps the rest of the code object consistent where that is mechanical:
    exception-table offsets at or past ``offset`` move up (an entry that
    contains ``offset`` grows), and the location table is rewritten with no
    position for the new units.  Relative jump arguments are NOT relocated:
    insert where no jump crosses ``offset`` (e.g. at the end) or fix them with
    ``patch``.
    """
    if len(data) % 2 or offset % 2:
        raise ValueError("insert whole code units at a unit boundary")
    n = len(data)
    b = code.co_code
    positions = list(code.co_positions())
    k = offset // 2
    positions[k:k] = [None] * (n // 2)
    table = entries(code)
    for e in table:
        if e.start >= offset:
            e.start += n
        if e.end > offset:
            e.end += n
        if e.target >= offset:
            e.target += n
    new = code.replace(co_code=b[:offset] + bytes(data) + b[offset:])
    return new.replace(co_exceptiontable=encode_exception_table(table),
                       co_linetable=_encode_locations(new, positions))


def fit_locations(code, num_units):
    """``code`` with a location table covering exactly ``num_units`` code
    units: the first units keep their positions, any extra ones get none."""
    positions = list(code.co_positions())[:num_units]
    positions += [None] * (num_units - len(positions))
    return code.replace(co_linetable=_encode_locations(code, positions))


# --- raw marshal ----------------------------------------------------------
#
# marshal.dump() does not write co_code as stored: it writes the
# "deoptimised" copy CPython 3.11 exposes as co_code (_PyCode_GetCode), in
# which every opcode is mapped through _PyOpcode_Deopt (a specialised opcode
# becomes its base opcode, an unknown one becomes CACHE) and every inline
# cache unit is zeroed.  It also indexes past the end when the last
# instruction's caches are cut off.  Such inputs are therefore made at the
# byte level: marshal the real code object, then swap its co_code bytes.

def raw_marshal(code, co_code, fit=True):
    """marshal.dumps(code) with the co_code string replaced by ``co_code``
    (any length, even odd), byte for byte.  With ``fit`` the location table
    is first fitted to the new number of whole units (fit_locations); the
    rest of the code object is unchanged."""
    if fit:
        code = fit_locations(code, len(co_code) // 2)
    data = marshal.dumps(code)
    old = code.co_code
    needle = struct.pack("<I", len(old)) + old
    at = data.find(needle)
    if at < 1 or data.find(needle, at + 1) >= 0:
        raise LookupError("co_code not found exactly once in the marshal data")
    if data[at - 1] & 0x7F != ord("s"):
        raise LookupError("co_code is not marshalled as a plain bytes object")
    return (data[:at] + struct.pack("<I", len(co_code)) + bytes(co_code) +
            data[at + len(needle):])


def child(code, name):
    """The nested code object called ``name`` among ``code.co_consts``."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and c.co_name == name:
            return c
    raise LookupError(f"{code.co_qualname} has no nested code {name!r}")


def self_test():
    """Check the codecs on the worked examples of the bytecode notes (section
    2.2) and against dis on this module's own code objects."""
    assert (encode_exception_table([Entry(40, 56, 200, 3)]) ==
            bytes.fromhex("94 08 41 24 06"))
    assert decode_varints(bytes.fromhex("c1 05")) == [69]
    assert encode_varint(2, min_chunks=2) == bytes.fromhex("40 02")
    assert encode_varint(20, first=True) == bytes.fromhex("94")
    checked = 0
    todo = [compile(open(__file__).read(), __file__, "exec")]
    while todo:
        code = todo.pop()
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        mine = [(e.start, e.end, e.target, e.depth, e.lasti)
                for e in entries(code)]
        ref = [(e.start, e.end, e.target, e.depth, e.lasti)
               for e in dis._parse_exception_table(code)]
        assert mine == ref, code.co_qualname
        assert encode_exception_table(entries(code)) == code.co_exceptiontable
        units = len(code.co_code) // 2
        fitted = fit_locations(code, units)
        assert list(fitted.co_positions()) == list(code.co_positions())
        checked += 1
    print(f"breakcode: self-test passed on {checked} code objects")


def main(argv):
    """breakcode.py SRC OUT [--object NAME]: like ``mkcode.py marshal``
    (exec SRC with __name__ == "mkcode"), but the object NAME (default CODE)
    may also be ``bytes`` from raw_marshal(), written verbatim."""
    if argv == ["--self-test"]:
        return self_test()
    src, out = argv[0], argv[1]
    name = argv[argv.index("--object") + 1] if "--object" in argv else "CODE"
    g = {"__name__": "mkcode", "__file__": src}
    with open(src) as f:
        exec(compile(f.read(), src, "exec"), g)
    obj = g[name]
    with open(out, "wb") as f:
        if isinstance(obj, (bytes, bytearray)):
            f.write(obj)
        else:
            marshal.dump(obj, f)


if __name__ == "__main__":
    main(sys.argv[1:])
