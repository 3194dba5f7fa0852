# except* handlers re-raise what PREP_RERAISE_STAR (3.12+: CALL_INTRINSIC_2 1)
# returns -- the exception left over, or None -- after testing a copy of it:
# PREP_RERAISE_STAR; COPY 1; POP_JUMP_IF_NOT_NONE L; ... L: SWAP 2;
# POP_EXCEPT; RERAISE 0. The test refines the value it copied, so the
# compiler's code is clean (exception-slot-type). With the test turned round
# (POP_JUMP_IF_NONE) the handler re-raises None. Measured (f below, g raising
# ValueError, patched with CodeType.replace, run in a subprocess): 3.11 the
# None escapes as the raised "exception" (print_exception: "Exception
# expected for value, NoneType found"; SIGSEGV when the process prints it),
# 3.12 and 3.13 SystemError from Python/traceback.c:50 (the traceback read
# out of None).
#
# RUN: %mkcode marshal %s %t.good311 --object GOOD311
# RUN: %pyverify check %t.good311 | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)
# RUN: %mkcode marshal %s %t.bad311 --object BAD311
# RUN: %not --code 1 %pyverify check %t.bad311 2>&1 | FileCheck %s --check-prefix=BAD311
# BAD311: error: 124 RERAISE 0 takes the value on top of the stack, which is None (pushed by PREP_RERAISE_STAR at 106), where it needs an exception: CPython does not check, and crashes or keeps a non-exception as the handled exception [exception-slot-type]
# RUN: %mkcode marshal %s %t.good312 --object GOOD312
# RUN: %pyverify check --python-version=3.12 %t.good312 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.bad312 --object BAD312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.bad312 2>&1 | FileCheck %s --check-prefix=BAD312
# BAD312: error: 100 RERAISE 0 takes the value on top of the stack, which is None (pushed by CALL_INTRINSIC_2 at 84), where it needs an exception{{.*}}[exception-slot-type]
# RUN: %mkcode marshal %s %t.good313 --object GOOD313
# RUN: %pyverify check --python-version=3.13 %t.good313 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.bad313 --object BAD313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.bad313 2>&1 | FileCheck %s --check-prefix=BAD313
# BAD313: error: 106 RERAISE 0 takes the value on top of the stack, which is None (pushed by CALL_INTRINSIC_2 at 88), where it needs an exception{{.*}}[exception-slot-type]


def f():
    try:
        g()
    except* ValueError:
        h()


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    # f's code as each version compiled it (co_code, co_exceptiontable); BAD:
    # the POP_JUMP_IF_NOT_NONE after PREP_RERAISE_STAR / CALL_INTRINSIC_2
    # made POP_JUMP_IF_NONE.
    def version(good, bad_op, at, table):
        bad = bytearray.fromhex(good)
        bad[at] = bad_op
        return [code(c, table, stacksize=6, names=("g", "ValueError", "h"))
                for c in (good, bad.hex())]

    GOOD311, BAD311 = version(
        "97000900740100000000000000000000a6000000ab000000000000000000010064"
        "00530023007801670063027402000000000000000000002500780181140100740500"
        "000000000000000000a6000000ab00000000000000000001006e03910301006e026e"
        "01010091015800780180040100590064005300630259007700780359007701",
        0x81, 110, "820e1200920e3f03a00e2f09ae0b3f03")
    GOOD312, BAD312 = version(
        "9700090074010000000000000000ab000000000000000100790023006700780274"
        "020000000000000000250078018110010074050000000000000000ab0000000000"
        "000001006e03910301006e026e0101009101ae0178018003010059007900630259"
        "007700780359007701", 0x81, 88, "820a0d008d0c3303990a2409a30b3303")
    GOOD313, BAD313 = version(
        "95001e005b01000000000000000035000000000000002000670021002f003d025b"
        "02000000000000000006003d016211000020005b05000000000000000035000000"
        "00000000200050014f065003200050014f022000500138013d0163030000200"
        "01f00670073021f0066003d031f006601", 0x62, 92,
        "820a0d008d0d36039a0a2609a40d3603")
