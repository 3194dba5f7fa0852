# A NULL where an instruction reads a value: found by
# tests/differential/null_probe.py, which puts a NULL in each of the top
# four stack slots of every opcode and runs the result (each shape below
# SIGSEGVs python3.11.7 / 3.12.1 / 3.13.0; families.py runs them in ctest).
#
# Read in place, never popped: GET_ANEXT's async iterator, IMPORT_FROM's
# module, SEND's receiver (3.12+; 3.11's SEND pops it), MATCH_KEYS's keys,
# DICT_MERGE's callable (read for the message of a bad ** argument: an int
# here). Popped on one edge only: POP_JUMP_IF_NONE's value (NULL is not None,
# so the jump edge never sees it; the fall-through's DECREF crashes) and
# 3.11's JUMP_IF_TRUE_OR_POP (its jump edge keeps the value): before the
# fix, only the block's first normal edge reported the last instruction's
# issues.
#
# RUN: %mkcode marshal %s %t.none311 --object NONE311
# RUN: %not --code 1 %pyverify check %t.none311 2>&1 | FileCheck %s --check-prefix=NONE
# RUN: %mkcode marshal %s %t.none312 --object NONE312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.none312 2>&1 | FileCheck %s --check-prefix=NONE
# RUN: %mkcode marshal %s %t.none313 --object NONE313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.none313 2>&1 | FileCheck %s --check-prefix=NONE
# NONE: error: 4 POP_JUMP_{{(FORWARD_)?}}IF_NONE 2 takes the value it pops first from the deepest, which is NULL, where it needs an object [null-stack-value]
# RUN: %mkcode marshal %s %t.notnone311 --object NOTNONE311
# RUN: %not --code 1 %pyverify check %t.notnone311 2>&1 | FileCheck %s --check-prefix=NOTNONE
# RUN: %mkcode marshal %s %t.notnone312 --object NOTNONE312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.notnone312 2>&1 | FileCheck %s --check-prefix=NOTNONE
# RUN: %mkcode marshal %s %t.notnone313 --object NOTNONE313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.notnone313 2>&1 | FileCheck %s --check-prefix=NOTNONE
# NOTNONE: error: 4 POP_JUMP_{{(FORWARD_)?}}IF_NOT_NONE 2 takes the value it pops first from the deepest, which is NULL, where it needs an object [null-stack-value]
# RUN: %mkcode marshal %s %t.trueorpop311 --object TRUEORPOP311
# RUN: %not --code 1 %pyverify check %t.trueorpop311 2>&1 | FileCheck %s --check-prefix=TRUEORPOP
# TRUEORPOP: error: 4 JUMP_IF_TRUE_OR_POP 2 takes the value it pops first from the deepest, which is NULL, where it needs an object [null-stack-value]
# RUN: %mkcode marshal %s %t.anext311 --object ANEXT311
# RUN: %not --code 1 %pyverify check %t.anext311 2>&1 | FileCheck %s --check-prefix=ANEXT
# RUN: %mkcode marshal %s %t.anext312 --object ANEXT312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.anext312 2>&1 | FileCheck %s --check-prefix=ANEXT
# RUN: %mkcode marshal %s %t.anext313 --object ANEXT313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.anext313 2>&1 | FileCheck %s --check-prefix=ANEXT
# ANEXT: error: 4 GET_ANEXT {{.*}}without popping it, which is NULL{{.*}}[null-stack-value]
# RUN: %mkcode marshal %s %t.importfrom311 --object IMPORTFROM311
# RUN: %not --code 1 %pyverify check %t.importfrom311 2>&1 | FileCheck %s --check-prefix=IMPORTFROM
# RUN: %mkcode marshal %s %t.importfrom312 --object IMPORTFROM312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.importfrom312 2>&1 | FileCheck %s --check-prefix=IMPORTFROM
# RUN: %mkcode marshal %s %t.importfrom313 --object IMPORTFROM313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.importfrom313 2>&1 | FileCheck %s --check-prefix=IMPORTFROM
# IMPORTFROM: error: 4 IMPORT_FROM 0 {{.*}}without popping it, which is NULL{{.*}}[null-stack-value]
# RUN: %mkcode marshal %s %t.send312 --object SEND312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.send312 2>&1 | FileCheck %s --check-prefix=SEND
# RUN: %mkcode marshal %s %t.send313 --object SEND313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.send313 2>&1 | FileCheck %s --check-prefix=SEND
# SEND: error: 6 SEND 2 {{.*}}without popping it, which is NULL{{.*}}[null-stack-value]
# RUN: %mkcode marshal %s %t.matchkeys311 --object MATCHKEYS311
# RUN: %not --code 1 %pyverify check %t.matchkeys311 2>&1 | FileCheck %s --check-prefix=MATCHKEYS
# RUN: %mkcode marshal %s %t.matchkeys312 --object MATCHKEYS312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.matchkeys312 2>&1 | FileCheck %s --check-prefix=MATCHKEYS
# RUN: %mkcode marshal %s %t.matchkeys313 --object MATCHKEYS313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.matchkeys313 2>&1 | FileCheck %s --check-prefix=MATCHKEYS
# MATCHKEYS: error: 6 MATCH_KEYS {{.*}}without popping it, which is NULL{{.*}}[null-stack-value]
# RUN: %mkcode marshal %s %t.merge311 --object MERGE311
# RUN: %not --code 1 %pyverify check %t.merge311 2>&1 | FileCheck %s --check-prefix=MERGE
# RUN: %mkcode marshal %s %t.merge312 --object MERGE312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.merge312 2>&1 | FileCheck %s --check-prefix=MERGE
# RUN: %mkcode marshal %s %t.merge313 --object MERGE313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.merge313 2>&1 | FileCheck %s --check-prefix=MERGE
# MERGE: error: {{[0-9]+}} DICT_MERGE 1 {{.*}}without popping it, which is NULL{{.*}}[null-stack-value]

# 3.13 moved DICT_MERGE's callable under its NULL or self: four values
# under DICT_MERGE 1 are one too few (the opcode table's Reads, 4 + oparg).
# RUN: %mkcode marshal %s %t.mergeunder313 --object MERGEUNDER313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.mergeunder313 2>&1 | FileCheck %s --check-prefix=MERGEUNDER
# MERGEUNDER: error: DICT_MERGE 1 reads the stack 5 value(s) deep (PEEK(5)) but only 4 are on the stack [stack-underflow]

def t(cm, boom, exc):
    pass


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    C = (None, 1, (1, 2))

    NONE311 = code("9700020081027c0282017c028201", "", consts=C, names=("x",),
                    template=t.__code__)
    NONE312 = code("9700020081027c0282017c028201", "", consts=C, names=("x",),
                    template=t.__code__)
    NONE313 = code("95002200620200005502650155026501", "", consts=C, names=("x",),
                    template=t.__code__)
    NOTNONE311 = code("9700020080027c0282017c028201", "", consts=C, names=("x",),
                       template=t.__code__)
    NOTNONE312 = code("9700020080027c0282017c028201", "", consts=C, names=("x",),
                       template=t.__code__)
    NOTNONE313 = code("95002200630200005502650155026501", "", consts=C, names=("x",),
                       template=t.__code__)
    TRUEORPOP311 = code("9700020070027c0282017c028201", "", consts=C, names=("x",),
                         template=t.__code__)
    ANEXT311 = code("9700020033007c028201", "", consts=C, names=("x",),
                     template=t.__code__)
    ANEXT312 = code("9700020033007c028201", "", consts=C, names=("x",),
                     template=t.__code__)
    ANEXT313 = code("95002200120055026501", "", consts=C, names=("x",),
                     template=t.__code__)
    IMPORTFROM311 = code("970002006d007c028201", "", consts=C, names=("x",),
                          template=t.__code__)
    IMPORTFROM312 = code("970002006d007c028201", "", consts=C, names=("x",),
                          template=t.__code__)
    IMPORTFROM313 = code("950022004a0055026501", "", consts=C, names=("x",),
                          template=t.__code__)
    SEND312 = code("9700020064007b0200007c0282017c028201", "", consts=C, names=("x",),
                    template=t.__code__)
    SEND313 = code("950022005300680200005502650155026501", "", consts=C, names=("x",),
                    template=t.__code__)
    MATCHKEYS311 = code("97006401020021007c028201", "", consts=C, names=("x",),
                         template=t.__code__)
    MATCHKEYS312 = code("97006401020021007c028201", "", consts=C, names=("x",),
                         template=t.__code__)
    MATCHKEYS313 = code("9500530122001b0055026501", "", consts=C, names=("x",),
                         template=t.__code__)
    MERGE311 = code("970064010200640269006401a4017c028201", "", consts=C, names=("x",),
                     template=t.__code__)
    MERGE312 = code("970064010200640269006401a4017c028201", "", consts=C, names=("x",),
                     template=t.__code__)
    MERGE313 = code("950022005301530230005301440155026501", "", consts=C, names=("x",),
                     template=t.__code__)
    MERGEUNDER313 = code("95005301530230005301440155026501", "", consts=C,
                         names=("x",), template=t.__code__)
