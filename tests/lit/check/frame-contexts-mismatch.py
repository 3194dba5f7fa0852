# check and prove agree on the contexts the rewritten frame holds at its break
# instruction (located as prove locates it, BreakLocation.h): as many
# torch-function modes and as many ordinary contexts as the original holds
# at break_offset, with the kinds resume 0 claims. Their interleaving is not
# compared (two stacks; a correct frame replays its modes first, so it holds
# [mode, with] where the original holds [with, mode]). Before, `check`
# passed the bundles that `prove` refutes (matches-eager at the frame's
# break).
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %S/../prove/rewriter-bundles.py generate %t modes-entered-twice modes-correct correct
# RUN: %python %s %t/modes-correct.pvb %t/modes-not-replayed.pvb
#
# entered-twice: the frame also enters, as an ordinary context, what the
# original holds as a mode.
# RUN: %not --code 1 %pyverify check %t/modes-entered-twice.pvb | FileCheck %s --check-prefix=TWICE
# TWICE: error: the frame holds [mode, with] at its break instruction (CALL at offset {{[0-9]+}}) where the original holds [mode] at break_offset {{[0-9]+}} [frame-contexts-mismatch]
# TWICE-NEXT: in [frame] nested (line {{[0-9]+}}) at offset {{[0-9]+}}: CALL 1
# RUN: %not --code 1 %pyverify prove %t/modes-entered-twice.pvb | FileCheck %s --check-prefix=TWICE-PROVE
# TWICE-PROVE: modes-entered-twice.pvb: [frame] refuted: matches-eager: at the break instruction the frame holds [mode, with], but the original holds [mode] at break_offset
#
# The frame's mode replay (set_stack of the graph's mode list) made a
# get_stack: the frame holds no mode at its break.
# RUN: %not --code 1 %pyverify check %t/modes-not-replayed.pvb | FileCheck %s --check-prefix=NOREPLAY
# NOREPLAY: error: the frame holds [] at its break instruction (CALL at offset {{[0-9]+}}) where the original holds [mode] at break_offset {{[0-9]+}} [frame-contexts-mismatch]
# RUN: %not --code 1 %pyverify prove %t/modes-not-replayed.pvb | FileCheck %s --check-prefix=NOREPLAY-PROVE
# NOREPLAY-PROVE: modes-not-replayed.pvb: [frame] refuted: matches-eager: at the break instruction the frame holds [], but the original holds [mode] at break_offset
#
# The check can be turned off like any other.
# RUN: %pyverify check --checks=-frame-contexts-mismatch %t/modes-entered-twice.pvb | FileCheck %s --check-prefix=OFF
# OFF-NOT: frame-contexts-mismatch
# OFF: 0 error(s)
#
# Control: the correct rewrites, with and without a mode, pass both.
# RUN: %pyverify check %t/modes-correct.pvb %t/correct.pvb | FileCheck %s --check-prefix=OK
# OK-NOT: frame-contexts-mismatch
# OK: pyverify: 2 file(s), {{[0-9]+}} code object(s): 0 error(s), 0 warning(s)
# RUN: %pyverify prove %t/modes-correct.pvb %t/correct.pvb | FileCheck %s --check-prefix=OK-PROVE
# OK-PROVE: pyverify: 2 file(s), 4 result(s): 4 proved, 0 refuted, 0 unknown

import dis
import marshal
import sys

if __name__ == "__main__":
    # modes-not-replayed: the frame's first LOAD_METHOD set_stack (the
    # replay) loads get_stack instead; the later restores stay.
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        b = marshal.load(f)
    frame = b["frame"]
    names = frame.co_names
    first = next(i for i in dis.get_instructions(frame)
                 if i.opname == "LOAD_METHOD" and i.argval == "set_stack")
    code = bytearray(frame.co_code)
    assert code[first.offset + 1] == names.index("set_stack")
    code[first.offset + 1] = names.index("get_stack")
    b["frame"] = frame.replace(co_code=bytes(code))
    with open(dst, "wb") as f:
        marshal.dump(b, f)
