# LIST_APPEND, LIST_EXTEND and MAP_ADD add to the container at a stack
# position their argument names (under what they pop) without checking its
# type (value-kind-mismatch): the container must be a list (BUILD_LIST) or a
# dict (BUILD_MAP). Measured with 7 as the container (LIST_EXTEND: (1, 2);
# a str, None alike): SIGSEGV on 3.11.7, 3.12.1 and 3.13.0; on 3.14.2
# LIST_APPEND and LIST_EXTEND trap ("memory access out of bounds") and
# MAP_ADD never returns. LIST_APPEND of a tuple, LIST_EXTEND of a tuple or
# None ran on without a fault there -- writing into the tuple's memory. A
# container of unknown type (a parameter: a rewriter's resume function may
# receive a comprehension's list) is a stated precondition, not reported;
# SET_ADD, SET_UPDATE, DICT_UPDATE and DICT_MERGE raise SystemError on a
# wrong one (not reported). Found while widening the differential sweep
# (tests/differential/README.md).
#
# RUN: %mkcode marshal %s %t.la311 --object LA311
# RUN: %not --code 1 %pyverify check %t.la311 2>&1 | FileCheck %s --check-prefix=LA
# RUN: %mkcode marshal %s %t.la313 --object LA313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.la313 2>&1 | FileCheck %s --check-prefix=LA
# RUN: %mkcode marshal %s %t.la314 --object LA314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.la314 2>&1 | FileCheck %s --check-prefix=LA
# RUN: %mkcode marshal %s %t.la315 --object LA315
# RUN: %not --code 1 %pyverify check --python-version=3.15 %t.la315 2>&1 | FileCheck %s --check-prefix=LA
# LA: error: 4 LIST_APPEND 1 takes the value #2 from the top, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 0), where it needs a list: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.le312 --object LE312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.le312 2>&1 | FileCheck %s --check-prefix=LE
# RUN: %mkcode marshal %s %t.le314 --object LE314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.le314 2>&1 | FileCheck %s --check-prefix=LE
# LE: error: 4 LIST_EXTEND 1 takes the value #2 from the top, which is a tuple (pushed by LOAD_CONST at 0), where it needs a list: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.ma311 --object MA311
# RUN: %not --code 1 %pyverify check %t.ma311 2>&1 | FileCheck %s --check-prefix=MA
# RUN: %mkcode marshal %s %t.ma313 --object MA313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.ma313 2>&1 | FileCheck %s --check-prefix=MA
# RUN: %mkcode marshal %s %t.ma315 --object MA315
# RUN: %not --code 1 %pyverify check --python-version=3.15 %t.ma315 2>&1 | FileCheck %s --check-prefix=MA
# MA: error: 6 MAP_ADD 1 takes the value #3 from the top, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 0), where it needs a dict: CPython does not check, and crashes [value-kind-mismatch]
#
# MAP_ADD reaching the bound __exit__ of a with (BEFORE_WITH's, 3.14's
# LOAD_SPECIAL's): SIGSEGV on 3.11.7 and 3.13.0, a trap on 3.14.2 (the
# differential sweep's 3.13 case 2767 of seed 24, with comprehensions in
# its programs). The exit slot is known not to be a dict (a bound method).
# RUN: %mkcode marshal %s %t.mx311 --object MAEXIT311
# RUN: %not --code 1 %pyverify check %t.mx311 2>&1 | FileCheck %s --check-prefix=MAEXIT
# RUN: %mkcode marshal %s %t.mx313 --object MAEXIT313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.mx313 2>&1 | FileCheck %s --check-prefix=MAEXIT
# MAEXIT: error: 8 MAP_ADD 2 takes the value #4 from the top, which is a bool or another object that is not an exception (pushed by BEFORE_WITH at 2), where it needs a dict
# RUN: %mkcode marshal %s %t.mx314 --object MAEXIT314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.mx314 2>&1 | FileCheck %s --check-prefix=MAEXIT314
# MAEXIT314: error: 24 MAP_ADD 3 takes the value #5 from the top, which is a bool or another object that is not an exception (pushed by LOAD_SPECIAL at 4), where it needs a dict
#
# Controls: the containers the compiler builds, and a parameter.
# RUN: %mkcode marshal %s %t.laok311 --object LAOK311
# RUN: %pyverify check %t.laok311 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.laok314 --object LAOK314
# RUN: %pyverify check --python-version=3.14 %t.laok314 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.maok313 --object MAOK313
# RUN: %pyverify check --python-version=3.13 %t.maok313 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.maok315 --object MAOK315
# RUN: %pyverify check --python-version=3.15 %t.maok315 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.laarg313 --object LAARG313
# RUN: %pyverify check --python-version=3.13 %t.laarg313 | FileCheck %s --check-prefix=GOOD
#
# A container that is an element of another list, as TorchDynamo builds it
# for a graph break in a comprehension or a nested frame
# (`_handle_comprehension_graph_break`, the nested graph break's "add the
# leaf_resume result to frame N-1 stack": COPY, LOAD_CONST 0, BINARY_SUBSCR
# -- here sliced as well -- then SWAP 2, LIST_APPEND 1): an object of
# unknown type to the kinds, and a list at run time (each shape below runs
# on its interpreter, 3.11.7 / 3.12.1 / 3.13.0 / 3.14.2, and returns the
# list appended to). This is why a container of unknown type is a
# precondition and not a finding: the emitter's own lists reach LIST_APPEND
# through a subscript, not only as arguments.
# RUN: %mkcode marshal %s %t.dyn311 --object DYN311
# RUN: %pyverify check %t.dyn311 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.dyn312 --object DYN312
# RUN: %pyverify check --python-version=3.12 %t.dyn312 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.dyn313 --object DYN313
# RUN: %pyverify check --python-version=3.13 %t.dyn313 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.dyn314 --object DYN314
# RUN: %pyverify check --python-version=3.14 %t.dyn314 | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)


def argt(container):
    pass


def frames(frame_values, value):
    pass


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    # co_consts (None, 7, (1, 2), 'k'); each shape: the container, the
    # value(s), the instruction with argument 1, RETURN_VALUE (hex per
    # version, from that interpreter's opcode module).
    K = (None, 7, (1, 2), "k")
    LA311 = code("6401640191015300", "", consts=K)
    LA313 = code("5301530150012400", "", consts=K)
    LA314 = code("520152014e012300", "", consts=K)
    LA315 = code("510151014d012100", "", consts=K)
    LE312 = code("64026402a2015300", "", consts=K)
    LE314 = code("520252024f012300", "", consts=K)
    MA311 = code("64016403640193015300", "", consts=K)
    MA313 = code("5301530353015f012400", "", consts=K)
    MA315 = code("51015103510161012100", "", consts=K)
    LAOK311 = code("6700640191015300", "", consts=K)
    LAOK314 = code("2e0052014e012300", "", consts=K)
    MAOK313 = code("3000530353015f012400", "", consts=K)
    MAOK315 = code("2d005103510161012100", "", consts=K)
    LAARG313 = code("5500530150012400", "", consts=K, template=argt.__code__)
    # LOAD_FAST cm, the version's with entry, LOAD_CONST 'k', LOAD_CONST 7,
    # MAP_ADD to the exit slot, POP_TOP, RETURN_VALUE.
    KV = (None, "k", 7)
    MAEXIT311 = code("7c00350064016402930201005300", "", consts=KV,
                     template=argt.__code__)
    MAEXIT313 = code("55000200530153025f0220002400", "", consts=KV,
                     template=argt.__code__)
    MAEXIT314 = code("54003b015f01750275035f0034000000000000005201520262031f"
                     "002300", "", consts=KV, template=argt.__code__)
    # RESUME, LOAD_FAST frame_values, LOAD_FAST value, COPY 2, LOAD_CONST 0,
    # the subscript (3.14: BINARY_OP NB_SUBSCR), LOAD_CONST 0, LOAD_CONST 2,
    # the slice (3.11: BUILD_SLICE, BINARY_SUBSCR), SWAP 2, LIST_APPEND 1,
    # SWAP 2, POP_TOP, RETURN_VALUE: frame_values[0][0:2] + [value].
    KD = (None, 0, 2)
    DYN311 = code("97007c007c01780264011900000000000000000064016402850219000000"
                  "00000000000063029101630201005300", "", consts=KD,
                  template=frames.__code__)
    DYN312 = code("97007c007c017802640119000000640164021a0063029101630201005300",
                  "", consts=KD, template=frames.__code__)
    DYN313 = code("9500550055013d0253010500000053015302040073025001730220002400",
                  "", consts=KD, template=frames.__code__)
    DYN314 = code("8000540054013b0252012c1a0000000000000000000052015202010075024e"
                  "0175021f002300", "", consts=KD, template=frames.__code__)
