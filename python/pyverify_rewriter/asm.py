"""A small 3.11-3.13 assembler/disassembler (bytecode notes sections 1, 2 and 8).

Instructions are symbolic: a jump's ``target`` is another ``Instr``, an
exception-table entry is ``Entry(handler_instr, depth, lasti)`` attached per
instruction, and fast/cell/free-variable operands are ``Local(name)`` so the
same instruction can be assembled into a code object with a different
``co_localsplusnames`` layout.  ``assemble`` resolves EXTENDED_ARG prefixes to a
fixed point, zeroes inline caches, resolves relative jumps (direction from the
opcode), builds the exception table from per-instruction entries (merging
consecutive instructions with an identical entry into one range) and writes a
location table with the LONG (14), NO_COLUMNS (13) and NONE (15) forms.
"""

from .opcodes import (BACKWARD_JUMPS, CACHES, EXTENDED_ARG, HASJREL, HASARG,
                      LOCALSPLUS, NAME, OP, SUPERINSTRUCTION_FIELDS,
                      SUPERINSTRUCTIONS, field)


class Local(str):
    """A localsplus operand, by name."""
    __slots__ = ()

    def __repr__(self):
        return "Local(%s)" % str.__repr__(self)


class Entry:
    """An exception-table entry as seen by one instruction."""
    __slots__ = ("handler", "depth", "lasti")

    def __init__(self, handler, depth, lasti):
        self.handler = handler
        self.depth = depth
        self.lasti = bool(lasti)

    def key(self):
        return (id(self.handler), self.depth, self.lasti)

    def __eq__(self, other):
        return isinstance(other, Entry) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return "Entry(->%r, %d%s)" % (self.handler, self.depth,
                                      " lasti" if self.lasti else "")


class Instr:
    __slots__ = ("op", "arg", "target", "entry", "pos", "offset", "orig",
                 "note")

    def __init__(self, op, arg=None, target=None, entry=None, pos=None,
                 orig=None, note=None):
        if isinstance(op, str):
            op = OP[op]
        self.op = op
        self.arg = arg
        self.target = target
        self.entry = entry
        self.pos = pos
        self.offset = None     # byte offset of the first unit, set by assemble()
        self.orig = orig       # byte offset in the code it was decoded from
        self.note = note

    @property
    def name(self):
        return NAME[self.op]

    def copy(self):
        c = Instr(self.op, self.arg, self.target, self.entry, self.pos,
                  self.orig, self.note)
        return c

    def __repr__(self):
        a = ""
        if self.target is not None:
            a = " ->%s" % (self.target.offset if self.target.offset is not None
                           else "?")
        elif self.arg is not None:
            a = " %r" % (self.arg,)
        o = "" if self.offset is None else "%d " % self.offset
        return "<%s%s%s>" % (o, self.name, a)


def localsplus_names(code):
    """co_localsplusnames: locals, then cells that are not arguments, then frees."""
    cells = tuple(c for c in code.co_cellvars if c not in code.co_varnames)
    return code.co_varnames + cells + code.co_freevars


# ---------------------------------------------------------------------------
# Exception table varints (section 2.2)

def encode_varint_msb(value, first):
    """6-bit chunks, most significant first, 0x40 = continue, 0x80 on the
    first byte of an entry."""
    assert 0 <= value < (1 << 30), value
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(value & 63)
        value >>= 6
    chunks.reverse()
    out = bytearray()
    for i, c in enumerate(chunks):
        b = c
        if i < len(chunks) - 1:
            b |= 0x40
        if i == 0 and first:
            b |= 0x80
        out.append(b)
    return bytes(out)


def encode_exception_table(entries):
    """entries: (start_unit, end_unit_exclusive, target_unit, depth, lasti)."""
    out = bytearray()
    for start, end, target, depth, lasti in entries:
        assert end > start
        out += encode_varint_msb(start, True)
        out += encode_varint_msb(end - start, False)
        out += encode_varint_msb(target, False)
        out += encode_varint_msb((depth << 1) | int(bool(lasti)), False)
    return bytes(out)


def parse_exception_table(data):
    """-> list of (start_unit, end_unit_exclusive, target_unit, depth, lasti)."""
    entries = []
    i = 0
    n = len(data)

    def read():
        nonlocal i
        b = data[i]
        i += 1
        v = b & 63
        while b & 64:
            b = data[i]
            i += 1
            v = (v << 6) | (b & 63)
        return v

    while i < n:
        if not data[i] & 0x80:
            raise ValueError("exception table: entry does not start with 0x80 "
                             "at byte %d" % i)
        start = read()
        length = read()
        target = read()
        dl = read()
        entries.append((start, start + length, target, dl >> 1, bool(dl & 1)))
    return entries


# ---------------------------------------------------------------------------
# Flattening nested ranges, innermost wins (emitted-code section 9.1)

class FlattenError(ValueError):
    pass


def flatten_ranges(ranges):
    """ranges: (start, end_inclusive, payload) over instruction indices, in any
    order, possibly nested.  Returns disjoint sorted (start, end, payload) where
    the innermost range wins.  Equal ranges must carry equal payloads; a
    partial overlap raises FlattenError."""
    rs = sorted(((s, e, p) for s, e, p in ranges if e >= s),
                key=lambda r: (r[0], -r[1]))
    out = []
    stack = []  # open ranges: [start_of_uncovered_part, end, payload, start]

    def emit(s, e, p):
        if s > e:
            return
        if out and out[-1][2] == p and out[-1][1] + 1 == s:
            out[-1] = (out[-1][0], e, p)    # same run continues
        else:
            out.append((s, e, p))

    def pop_until(pos):
        # close every open range that ends before pos
        while stack and stack[-1][1] < pos:
            s, e, p, _ = stack.pop()
            emit(s, e, p)
            if stack:
                stack[-1][0] = e + 1

    for s, e, p in rs:
        pop_until(s)
        if stack:
            top = stack[-1]
            if e > top[1]:
                raise FlattenError("partially overlapping ranges %r and %r"
                                   % ((top[0], top[1]), (s, e)))
            if (s, e) == (top[3], top[1]) and top[2] != p:
                raise FlattenError("equal ranges with different handlers at "
                                   "%d..%d" % (s, e))
            emit(top[0], s - 1, top[2])
            top[0] = s
        stack.append([s, e, p, s])
    pop_until(float("inf"))
    return out


def ranges_to_entries(instrs, ranges):
    """Assign flattened ranges (over instruction *objects*) to instr.entry.

    ranges: (first_instr, last_instr, Entry).  Instructions not covered keep
    entry None."""
    index = {id(ins): k for k, ins in enumerate(instrs)}
    flat = flatten_ranges([(index[id(a)], index[id(b)], ent)
                           for a, b, ent in ranges])
    for ins in instrs:
        ins.entry = None
    for s, e, ent in flat:
        for k in range(s, e + 1):
            instrs[k].entry = ent
    return flat


# ---------------------------------------------------------------------------
# Decoding

def decode(code):
    """Decode a code object into symbolic instructions.

    Returns the list; each Instr has ``orig`` = its byte offset (first prefix),
    jump ``target`` resolved, ``entry`` from the exception table (looked up at
    the opcode unit), ``pos`` from co_positions (of the opcode unit) and local
    operands as Local(name).  A 3.13 superinstruction (two locals in one
    argument) becomes its two plain instructions, the second with ``orig``
    None."""
    raw = code.co_code
    names = localsplus_names(code)
    positions = list(code.co_positions())
    instrs = []
    by_offset = {}
    pending_jumps = []
    opunit = {}
    i = 0
    n = len(raw)
    ext = 0
    start = None
    while i < n:
        op = raw[i]
        arg = raw[i + 1]
        if start is None:
            start = i
        if op == EXTENDED_ARG:
            ext = (ext << 8) | arg
            i += 2
            continue
        full = (ext << 8) | arg if op in HASARG else None
        ins = Instr(op, full, orig=start)
        ins.pos = _pos_or_none(positions[i // 2])
        ins.offset = start
        if op in HASJREL:
            # counted from the unit after the inline caches (3.12's
            # FOR_ITER and SEND have one; 3.11's jumps have none)
            after = i + 2 + 2 * CACHES[op]
            if op in BACKWARD_JUMPS:
                tgt = after - 2 * full
            else:
                tgt = after + 2 * full
            pending_jumps.append((ins, tgt))
            ins.arg = None
        elif op in SUPERINSTRUCTIONS:
            first, second = SUPERINSTRUCTIONS[op]
            f1, f2 = SUPERINSTRUCTION_FIELDS[op]
            ins.op, ins.arg = first, Local(names[field(f1, full)])
            half = Instr(second, Local(names[field(f2, full)]), pos=ins.pos)
            instrs.append(ins)
            instrs.append(half)
            by_offset[start] = ins
            opunit[id(ins)] = opunit[id(half)] = i
            i += 2 + 2 * CACHES[op]
            ext = 0
            start = None
            continue
        elif op in LOCALSPLUS:
            ins.arg = Local(names[full])
        instrs.append(ins)
        by_offset[start] = ins
        # opcode unit offset, for table lookup
        opunit[id(ins)] = i
        i += 2 + 2 * CACHES[op]
        ext = 0
        start = None
    for ins, tgt in pending_jumps:
        if tgt not in by_offset:
            raise ValueError("jump at %d to %d is not an instruction start"
                             % (ins.orig, tgt))
        ins.target = by_offset[tgt]
    # exception table
    entries = parse_exception_table(code.co_exceptiontable)
    made = {}
    for ins in instrs:
        u = opunit[id(ins)] // 2
        for s, e, t, d, l in entries:
            if s <= u < e:
                tb = t * 2
                if tb not in by_offset:
                    raise ValueError("exception target %d is not an instruction"
                                     % tb)
                key = (s, tb, d, l)
                ent = made.get(key)
                if ent is None:
                    ent = made[key] = Entry(by_offset[tb], d, l)
                ins.entry = ent
                break
    return instrs


def _pos_or_none(p):
    if p is None or p[0] is None:
        return None
    return p


def instr_size_units(ins, arg):
    """Units of an instruction with argument ``arg`` (prefixes + opcode + caches)."""
    prefixes = 0
    if ins.op in HASARG and arg is not None:
        a = arg
        while a > 0xFF:
            prefixes += 1
            a >>= 8
    return prefixes + 1 + CACHES[ins.op]


# ---------------------------------------------------------------------------
# Location table (section 8)

def _varint_lsb(v):
    out = bytearray()
    while v >= 64:
        out.append((v & 63) | 64)
        v >>= 6
    out.append(v)
    return out


def _svarint(v):
    return _varint_lsb((v << 1) if v >= 0 else ((-v << 1) | 1))


def encode_linetable(units_and_pos, firstlineno):
    """units_and_pos: list of (units, pos) per instruction, pos a 4-tuple
    (line, end_line, col, end_col) with possibly-None columns, or None."""
    out = bytearray()
    prev_line = firstlineno
    for units, pos in units_and_pos:
        while units > 0:
            k = min(units, 8)
            units -= k
            if pos is None or pos[0] is None:
                out.append(0x80 | (15 << 3) | (k - 1))
                continue
            line, end_line, col, end_col = pos
            delta = line - prev_line
            prev_line = line
            if col is None or end_col is None or end_line is None:
                out.append(0x80 | (13 << 3) | (k - 1))
                out += _svarint(delta)
            else:
                out.append(0x80 | (14 << 3) | (k - 1))
                out += _svarint(delta)
                out += _varint_lsb(end_line - line)
                out += _varint_lsb(col + 1)
                out += _varint_lsb(end_col + 1)
    return bytes(out)


# ---------------------------------------------------------------------------
# Assembling

class AssemblyResult:
    __slots__ = ("code", "exceptiontable", "linetable", "entries")

    def __init__(self, code, exceptiontable, linetable, entries):
        self.code = code
        self.exceptiontable = exceptiontable
        self.linetable = linetable
        self.entries = entries


def assemble(instrs, local_index, firstlineno):
    """Assemble symbolic instructions.

    local_index: dict name -> localsplus index for Local operands.
    Sets ``offset`` on every Instr.  Returns AssemblyResult."""
    ids = {id(ins) for ins in instrs}
    for ins in instrs:
        if ins.op in HASJREL:
            if ins.target is None or id(ins.target) not in ids:
                raise ValueError("jump %r has no target in this code" % ins)
        if ins.entry is not None and id(ins.entry.handler) not in ids:
            raise ValueError("entry of %r targets an instruction outside "
                             "this code" % ins)

    def argval(ins):
        if ins.op not in HASARG:
            return None
        if ins.op in HASJREL:
            return ins._jarg
        a = ins.arg
        if isinstance(a, Local):
            return local_index[a]
        if a is None:
            raise ValueError("%s needs an argument" % ins.name)
        return a

    # jump args start at 0; iterate until sizes are stable
    jarg = {id(ins): 0 for ins in instrs if ins.op in HASJREL}
    while True:
        off = 0
        sizes = []
        for ins in instrs:
            if ins.op in HASJREL:
                a = jarg[id(ins)]
            elif ins.op in HASARG:
                a = ins.arg if not isinstance(ins.arg, Local) else local_index[ins.arg]
            else:
                a = None
            u = instr_size_units(ins, a)
            ins.offset = off
            sizes.append(u)
            off += 2 * u
        changed = False
        for ins, u in zip(instrs, sizes):
            if ins.op not in HASJREL:
                continue
            pre = u - 1 - CACHES[ins.op]
            opunit = ins.offset // 2 + pre
            tgt = ins.target.offset // 2
            after = opunit + 1 + CACHES[ins.op]
            if ins.op in BACKWARD_JUMPS:
                a = after - tgt
            else:
                a = tgt - after
            if a < 0:
                raise ValueError("%s at %d cannot reach %d" %
                                 (ins.name, ins.offset, ins.target.offset))
            if a != jarg[id(ins)]:
                jarg[id(ins)] = a
                changed = True
        if not changed:
            break
    code = bytearray()
    for ins, u in zip(instrs, sizes):
        if ins.op in HASJREL:
            a = jarg[id(ins)]
        elif ins.op in HASARG:
            a = argval(ins)
        else:
            a = 0
        pre = u - 1 - CACHES[ins.op]
        for k in range(pre, 0, -1):
            code += bytes([EXTENDED_ARG, (a >> (8 * k)) & 0xFF])
        code += bytes([ins.op, a & 0xFF])
        code += b"\x00\x00" * CACHES[ins.op]
    # exception table: merge consecutive instructions with an identical entry
    entries = []
    cur = None
    for ins, u in zip(instrs, sizes):
        ent = ins.entry
        start = ins.offset // 2
        end = start + u
        if ent is not None and cur is not None and cur[3] is ent.handler \
                and cur[4] == ent.depth and cur[5] == ent.lasti and cur[1] == start:
            cur[1] = end
            continue
        if cur is not None:
            entries.append(cur)
            cur = None
        if ent is not None:
            cur = [start, end, None, ent.handler, ent.depth, ent.lasti]
    if cur is not None:
        entries.append(cur)
    table_entries = [(s, e, h.offset // 2, d, l) for s, e, _, h, d, l in entries]
    exctab = encode_exception_table(table_entries)
    lt = encode_linetable([(u, ins.pos) for ins, u in zip(instrs, sizes)],
                          firstlineno)
    return AssemblyResult(bytes(code), exctab, lt, table_entries)
