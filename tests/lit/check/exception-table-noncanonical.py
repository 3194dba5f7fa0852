# exception-table-noncanonical: a varint with a leading zero chunk. CPython
# decodes it (so the code runs) but never writes one: a warning, exit 0.
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
import breakcode as bc

def g(x):
    try:
        return x.y
    except AttributeError:
        return None

# Table bytes: 82 06 09 00 | 89 0a 17 03 | 96 01 17 03.

if __name__ == "mkcode":
    code = g.__code__
    t = bc.encode_exception_table
    e = bc.entries(code)
    assert t(e) == code.co_exceptiontable

    # The second entry's target (unit 23) written in two chunks, 40 17,
    # instead of 17: table byte 6.
    # RUN: %mkcode marshal %s %t.bin
    # RUN: %pyverify check %t.bin | FileCheck %s
    CODE = bc.with_entries(
        code, t(e[:1]) + bytes.fromhex("89 0a") +
        bc.encode_varint(23, min_chunks=2) + bytes.fromhex("03") + t(e[2:]))
    assert CODE.co_exceptiontable.hex(" ") == \
        "82 06 09 00 89 0a 40 17 03 96 01 17 03"
    # CHECK:      {{.*}}.py:7:1: warning: non-minimal varint at exception-table byte 6 (a leading zero chunk); CPython accepts it but never writes it [exception-table-noncanonical]
    # CHECK-NEXT:   in g (line 7) at offset 0: RESUME 0
    # The table still decodes to the same entries: nothing else is reported.
    # CHECK-NEXT: pyverify: 1 file(s), 1 code object(s): 0 error(s), 1 warning(s), 0 remark(s)
