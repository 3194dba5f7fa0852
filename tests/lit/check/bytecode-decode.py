# bytecode-decode: malformed instructions in co_code. Each object below is
# f's code with one change; its RUN and CHECK lines sit next to the change.
#
# marshal.dump() writes co_code deoptimised (specialised opcodes become their
# base opcode, unknown ones CACHE, cache units zero), so these inputs swap
# the co_code bytes inside the marshal data (breakcode.raw_marshal) and are
# written by breakcode.py, which writes such bytes verbatim.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def f(x):
    return x.attr

# f: 0 RESUME; 2 LOAD_FAST x; 4 LOAD_ATTR attr (4 cache units, bytes 6..13);
#    14 RETURN_VALUE.

def passes(x):
    pass
    pass
    pass
    pass
    return x

# passes: 0 RESUME; 2, 4, 6, 8 NOP (one per `pass`); 10 LOAD_FAST x;
#         12 RETURN_VALUE.

if __name__ == "mkcode":
    code = f.__code__
    attr = bc.offset_of(code, "LOAD_ATTR")
    assert attr == 4 and len(code.co_code) == 16
    raw = bytearray(code.co_code)

    # An opcode number CPython 3.11 does not define.
    # RUN: %python %S/../Inputs/breakcode.py %s %t.unknown --object UNKNOWN
    # RUN: %not --code 1 %pyverify check %t.unknown | FileCheck %s --check-prefix=UNKNOWN
    UNKNOWN = bc.raw_marshal(code, raw[:attr] + b"\xc8\x00" + raw[attr + 2:])
    # UNKNOWN:      {{.*}}.py:13:12: error: unknown opcode 200 for CPython 3.11 [bytecode-decode]
    # UNKNOWN-NEXT:   in f (line 12) at offset 4: <invalid>
    # An unknown opcode has no inline caches, so LOAD_ATTR's four cache units
    # that follow are instruction positions holding CACHE.
    # UNKNOWN-NEXT: {{.*}}.py:13:12: error: CACHE (0) at an instruction position; CACHE is only valid in inline cache slots [bytecode-decode]
    # UNKNOWN-NEXT:   in f (line 12) at offset 6: CACHE
    # UNKNOWN:      pyverify: 1 file(s), 1 code object(s): 6 error(s), 0 warning(s), 0 remark(s)

    # A specialised opcode: it exists only in the interpreter's adaptive copy,
    # never in co_code.
    # RUN: %python %S/../Inputs/breakcode.py %s %t.special --object SPECIAL
    # RUN: %not --code 1 %pyverify check %t.special | FileCheck %s --check-prefix=SPECIAL
    SPECIAL = bc.raw_marshal(
        code, raw[:attr] + bytes([bc.op("LOAD_ATTR_INSTANCE_VALUE"), 0]) +
        raw[attr + 2:])
    # SPECIAL:      {{.*}}.py:13:12: error: specialised opcode LOAD_ATTR_INSTANCE_VALUE ({{[0-9]+}}) is not valid in co_code; it only exists in the adaptive copy [bytecode-decode]
    # SPECIAL-NEXT:   in f (line 12) at offset 4: LOAD_ATTR_INSTANCE_VALUE
    # (Its four cache units are then also reported as CACHE at instruction
    # positions: see bytecode-decode-specialised-caches.py, XFAIL.)

    # CACHE (opcode 0) where an instruction must start: LOAD_FAST x becomes
    # CACHE. (marshal keeps this one, so CodeType.replace is enough.)
    # RUN: %mkcode marshal %s %t.cache --object CACHE_OP
    # RUN: %not --code 1 %pyverify check %t.cache | FileCheck %s --check-prefix=CACHE
    CACHE_OP = bc.patch(code, 2, "CACHE")
    # CACHE:      {{.*}}.py:13:12: error: CACHE (0) at an instruction position; CACHE is only valid in inline cache slots [bytecode-decode]
    # CACHE-NEXT:   in f (line 12) at offset 2: CACHE
    # CACHE-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # The code ends after two of LOAD_ATTR's four inline cache units.
    # RUN: %python %S/../Inputs/breakcode.py %s %t.trunc --object TRUNCATED
    # RUN: %not --code 1 %pyverify check %t.trunc | FileCheck %s --check-prefix=TRUNC
    TRUNCATED = bc.raw_marshal(code, raw[:attr + 2 + 2 * 2])
    # TRUNC:      {{.*}}.py:13:12: error: truncated instruction: LOAD_ATTR needs 4 inline cache units, the code ends after 2 [bytecode-decode]
    # TRUNC-NEXT:   in f (line 12) at offset 4: LOAD_ATTR 0
    # TRUNC-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # A non-zero inline cache unit (the second of LOAD_ATTR's four).
    # RUN: %python %S/../Inputs/breakcode.py %s %t.nzcache --object NONZERO_CACHE
    # RUN: %not --code 1 %pyverify check %t.nzcache | FileCheck %s --check-prefix=NZCACHE
    NONZERO_CACHE = bc.raw_marshal(
        code, raw[:attr + 4] + b"\x07\x01" + raw[attr + 6:])
    # NZCACHE:      {{.*}}.py:13:12: error: inline cache unit 1 of LOAD_ATTR at 4 is 07 01, expected 00 00 [bytecode-decode]
    # The finding is placed on the cache unit, which starts no instruction.
    # NZCACHE-NEXT:   in f (line 12) at offset 8, read from {{.*}}.nzcache{{$}}
    # NZCACHE-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)

    # An odd number of bytes: the last one is not a whole code unit
    # (CodeType.replace refuses this; the location table still covers the
    # 8 whole units).
    # RUN: %python %S/../Inputs/breakcode.py %s %t.odd --object ODD
    # RUN: %not --code 1 %pyverify check %t.odd | FileCheck %s --check-prefix=ODD
    ODD = bc.raw_marshal(code, raw + b"\x53")
    # ODD:      {{.*}}.py:{{[0-9]+}}: error: co_code has odd length 17; the last byte is not a whole code unit [bytecode-decode]
    # ODD-NEXT:   in f (line 12) at offset 16 (no line of its own), read from {{.*}}.odd{{$}}

    # Four EXTENDED_ARG prefixes (the four `pass` NOPs): an argument wider
    # than 32 bits. (marshal keeps EXTENDED_ARG, so CodeType.replace is
    # enough.)
    # RUN: %mkcode marshal %s %t.prefixes --object FOUR_PREFIXES
    # RUN: %not --code 1 %pyverify check %t.prefixes | FileCheck %s --check-prefix=PREFIXES
    FOUR_PREFIXES = passes.__code__
    for nop in bc.offsets(passes.__code__, "NOP"):
        FOUR_PREFIXES = bc.patch(FOUR_PREFIXES, nop, "EXTENDED_ARG", 0)
    # PREFIXES:      {{.*}}.py:22:5: error: more than three EXTENDED_ARG prefixes; the argument no longer fits in 32 bits [bytecode-decode]
    # The finding is on the fourth prefix, which is not the instruction's
    # opcode unit.
    # PREFIXES-NEXT:   in passes (line 18) at offset 8, read from {{.*}}.prefixes{{$}}
    # PREFIXES-NEXT: pyverify: 1 file(s), 1 code object(s): 2 error(s), 0 warning(s), 0 remark(s)
