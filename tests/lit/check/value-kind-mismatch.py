# An instruction given a value of the wrong kind (value-kind-mismatch).
#
# CPython does not check these operands. Measured on 3.11.7, 3.12.1, 3.13.0
# (code built with CodeType.replace, run in a subprocess):
#   FOR_ITER of a tuple constant (GET_ITER left out): SIGSEGV on all three
#     (tp_iternext is NULL); a list, None, an int, a bool alike;
#   3.12/3.13 CALL_INTRINSIC_1 6 (LIST_TO_TUPLE) of 7: SIGSEGV (an int, a
#     str, a tuple); 10 (SUBSCRIPT_GENERIC) of 7: SIGSEGV (an int, a str, a
#     list, a function); 11 (TYPEALIAS) of 7: SIGSEGV (all but a tuple, a
#     function, an exception); CALL_INTRINSIC_2 4 (SET_FUNCTION_TYPE_PARAMS)
#     of (7, None): SIGSEGV (it writes into its first operand as a function);
#   LOAD_DEREF / STORE_DEREF of a cell slot without MAKE_CELL, of a free
#     slot without COPY_FREE_VARS: SIGSEGV on all three.
#   3.13+'s CALL_KW whose keyword names (the top slot) are not a tuple, here
#     a bool from TO_BOOL of the names (the differential sweep's 3.13 case
#     21840 of seed 20261207): calling a Python function, SIGSEGV on 3.13.0
#     (an int, a float, a parameter True alike), a trap on 3.14.2; with
#     dict as the callee a TypeError with a huge argument count (the
#     names' "size" is read from a non-tuple). The operand rule sees only
#     a LOAD_CONST right before the call (operand-out-of-range).
# Controls (each clean): the same code with MAKE_CELL / COPY_FREE_VARS, and
# FOR_ITER / SUBSCRIPT_GENERIC of a parameter (its type is not known: a
# stated precondition, see docs/checks.md).
#
# RUN: %mkcode marshal %s %t.fi311 --object FOR311
# RUN: %not --code 1 %pyverify check %t.fi311 2>&1 | FileCheck %s --check-prefix=FOR
# RUN: %mkcode marshal %s %t.fi312 --object FOR312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.fi312 2>&1 | FileCheck %s --check-prefix=FOR
# RUN: %mkcode marshal %s %t.fi313 --object FOR313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.fi313 2>&1 | FileCheck %s --check-prefix=FOR
# FOR: error: {{[0-9]+}} FOR_ITER {{.*}} takes the value on top of the stack, which is a tuple (pushed by LOAD_CONST at 2), where it needs an iterator: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.fiarg --object FORARG311
# RUN: %pyverify check %t.fiarg | FileCheck %s --check-prefix=GOOD
# GOOD: 0 error(s), 0 warning(s)
#
# RUN: %mkcode marshal %s %t.i6 --object I6_312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.i6 2>&1 | FileCheck %s --check-prefix=I6
# RUN: %mkcode marshal %s %t.i6b --object I6_313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.i6b 2>&1 | FileCheck %s --check-prefix=I6
# I6: error: 4 CALL_INTRINSIC_1 6 {{.*}}takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 2), where it needs a list: CPython does not check, and crashes [value-kind-mismatch]
# A list of unknown type -- a parameter: a resume function split inside a
# star-argument call receives the list being built (check/star-call-resume.py)
# -- is the stated precondition, as for LIST_APPEND's container.
# RUN: %mkcode marshal %s %t.i6arg --object I6ARG312
# RUN: %pyverify check --python-version=3.12 %t.i6arg | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.i6argb --object I6ARG313
# RUN: %pyverify check --python-version=3.13 %t.i6argb | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.i10 --object I10_312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.i10 2>&1 | FileCheck %s --check-prefix=I10
# RUN: %mkcode marshal %s %t.i10b --object I10_313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.i10b 2>&1 | FileCheck %s --check-prefix=I10
# I10: error: 4 CALL_INTRINSIC_1 10 {{.*}}where it needs a tuple: CPython does not check, and crashes [value-kind-mismatch]
# A bool made by UNARY_NOT (3.13: TO_BOOL) is no more a tuple than a constant
# is (the differential sweep's 3.12 case 1928 of seed 2024, through a
# local): SIGSEGV on 3.12.1 and 3.13.0.
# RUN: %mkcode marshal %s %t.inot --object NOT312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.inot 2>&1 | FileCheck %s --check-prefix=BOOL
# RUN: %mkcode marshal %s %t.inotb --object NOT313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.inotb 2>&1 | FileCheck %s --check-prefix=BOOL
# RUN: %mkcode marshal %s %t.itob --object TOBOOL313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.itob 2>&1 | FileCheck %s --check-prefix=BOOL
# BOOL: error: {{[0-9]+}} CALL_INTRINSIC_1 10 {{.*}}which is a bool or another object that is not an exception (pushed by {{UNARY_NOT|TO_BOOL}} at {{[0-9]+}}), where it needs a tuple: CPython does not check, and crashes [value-kind-mismatch]
# A typing object an intrinsic builds (TYPEVAR of 7: a TypeVar, whatever
# its operand) is no list either: LIST_APPEND writes into it (3.12.1,
# 3.13.0: MemoryError, the heap damaged); FOR_ITER of one SIGSEGVs (the
# differential sweep's 3.13 case 1188 of seed 5151; families.py
# intrinsic-typevar-*, run on 3.12-3.15).
# RUN: %mkcode marshal %s %t.itv --object TYPEVAR312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.itv 2>&1 | FileCheck %s --check-prefix=TV
# RUN: %mkcode marshal %s %t.itvb --object TYPEVAR313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.itvb 2>&1 | FileCheck %s --check-prefix=TV
# TV: error: 8 LIST_APPEND 1 {{.*}}(pushed by CALL_INTRINSIC_1 at 4), where it needs a list{{.*}}[value-kind-mismatch]
# RUN: %mkcode marshal %s %t.i10arg --object I10ARG312
# RUN: %pyverify check --python-version=3.12 %t.i10arg | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.i11 --object I11_312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.i11 2>&1 | FileCheck %s --check-prefix=I11
# RUN: %mkcode marshal %s %t.i11b --object I11_313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.i11b 2>&1 | FileCheck %s --check-prefix=I11
# I11: error: 4 CALL_INTRINSIC_1 11 {{.*}}where it needs a tuple: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.i24 --object I2_4_312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.i24 2>&1 | FileCheck %s --check-prefix=I24
# RUN: %mkcode marshal %s %t.i24b --object I2_4_313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.i24b 2>&1 | FileCheck %s --check-prefix=I24
# I24: error: 6 CALL_INTRINSIC_2 4 {{.*}}takes the value #2 from the top, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 2), where it needs a function: CPython does not check, and crashes [value-kind-mismatch]
#
# MAKE_FUNCTION of what is not a code object, 3.13's SET_FUNCTION_ATTRIBUTE
# on what is not a function, 3.13's BUILD_CONST_KEY_MAP with keys that are not
# a tuple: SIGSEGV on 3.11.7 / 3.12.1 / 3.13.0 (tests/differential/
# null_probe.py's controls; families.py make-function-of-int & co.).
# RUN: %mkcode marshal %s %t.mf311 --object MAKEFUNC311
# RUN: %not --code 1 %pyverify check %t.mf311 2>&1 | FileCheck %s --check-prefix=MF
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.mf311 2>&1 | FileCheck %s --check-prefix=MF
# RUN: %mkcode marshal %s %t.mf313 --object MAKEFUNC313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.mf313 2>&1 | FileCheck %s --check-prefix=MF
# MF: error: 4 MAKE_FUNCTION {{(0 )?}}takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 2), where it needs a code object: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.sfa313 --object SETATTR313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.sfa313 2>&1 | FileCheck %s --check-prefix=SFA
# SFA: error: 6 SET_FUNCTION_ATTRIBUTE 1 takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 4), where it needs a function: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.ck313 --object CONSTKEYS313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.ck313 2>&1 | FileCheck %s --check-prefix=CK
# CK: error: 6 BUILD_CONST_KEY_MAP 1 takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 4), where it needs a tuple: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.ckok313 --object CONSTKEYSOK313
# RUN: %pyverify check --python-version=3.13 %t.ckok313 | FileCheck %s --check-prefix=GOOD
# ... and reads as many keys as its argument says: a constant (1, 2) or
# BUILD_TUPLE 2 under BUILD_CONST_KEY_MAP 3 is short (SIGSEGV on 3.13.0).
# RUN: %mkcode marshal %s %t.cks313 --object CONSTKEYSSHORT313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.cks313 2>&1 | FileCheck %s --check-prefix=CKS
# CKS: error: 10 BUILD_CONST_KEY_MAP 3 takes the value on top of the stack, a tuple of 2 items (pushed by LOAD_CONST at 8), where it needs at least 3: CPython does not check, and reads past its end [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.ckb313 --object CONSTKEYSBUILT313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.ckb313 2>&1 | FileCheck %s --check-prefix=CKB
# CKB: error: 14 BUILD_CONST_KEY_MAP 3 takes the value on top of the stack, a tuple of 2 items (pushed by BUILD_TUPLE at 12), where it needs at least 3
# RUN: %mkcode marshal %s %t.ckbok313 --object CONSTKEYSBUILTOK313
# RUN: %pyverify check --python-version=3.13 %t.ckbok313 | FileCheck %s --check-prefix=GOOD
# 3.14's SET_ADD adds to its set unchecked: a str there traps 3.14.2
# (families.py set-add-to-str); BUILD_SET's set is fine.
# RUN: %mkcode marshal %s %t.sa314 --object SETADD314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.sa314 2>&1 | FileCheck %s --check-prefix=SA
# SA: error: 6 SET_ADD 1 takes the value #2 from the top, which is a bool or another object that is not an exception (pushed by LOAD_CONST at 2), where it needs a set: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.saok314 --object SETADDOK314
# RUN: %pyverify check --python-version=3.14 %t.saok314 | FileCheck %s --check-prefix=GOOD
# 3.15: the slot over FOR_ITER's iterator and over SEND's receiver holds
# NULL or GET_ITER's index (a tagged int); None there is taken for an index
# (FOR_ITER over a tuple, SEND to None: traps 3.15.0rc1; families.py
# for-iter-index-of-none, send-index-of-none).
# RUN: %mkcode marshal %s %t.fidx315 --object FORIDX315
# RUN: %not --code 1 %pyverify check --python-version=3.15 %t.fidx315 2>&1 | FileCheck %s --check-prefix=FIDX
# FIDX: error: {{[0-9]+}} FOR_ITER 3 takes the value on top of the stack, which is None (pushed by LOAD_CONST at {{[0-9]+}}), where it needs GET_ITER's index (a tagged int) or NULL: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.fidxok315 --object FORIDXOK315
# RUN: %pyverify check --python-version=3.15 %t.fidxok315 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.sidx315 --object SENDIDX315
# RUN: %not --code 1 %pyverify check --python-version=3.15 %t.sidx315 2>&1 | FileCheck %s --check-prefix=SIDX
# SIDX: error: {{[0-9]+}} SEND 2 takes the value #2 from the top, which is None (pushed by LOAD_CONST at {{[0-9]+}}), where it needs GET_ITER's index (a tagged int) or NULL
# RUN: %mkcode marshal %s %t.sidxok315 --object SENDIDXOK315
# RUN: %pyverify check --python-version=3.15 %t.sidxok315 | FileCheck %s --check-prefix=GOOD
# UNPACK_SEQUENCE of a tuple constant gives each item its constant's kind:
# LIST_APPEND to the int 2 that (1, 2) left under the store (the differential
# sweep's 3.11 case 5376 of seed 6161, SIGSEGV; families.py
# list-append-to-unpacked-int).
# RUN: %mkcode marshal %s %t.unp311 --object UNPACK311
# RUN: %not --code 1 %pyverify check %t.unp311 2>&1 | FileCheck %s --check-prefix=UNP
# RUN: %mkcode marshal %s %t.unp313 --object UNPACK313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.unp313 2>&1 | FileCheck %s --check-prefix=UNP
# UNP: error: {{[0-9]+}} LIST_APPEND 1 takes the value #2 from the top, which is a bool or another object that is not an exception (pushed by UNPACK_SEQUENCE at {{[0-9]+}}), where it needs a list
# RUN: %mkcode marshal %s %t.c311 --object CELL311
# RUN: %not --code 1 %pyverify check %t.c311 2>&1 | FileCheck %s --check-prefix=CELL
# RUN: %mkcode marshal %s %t.c312 --object CELL312
# RUN: %not --code 1 %pyverify check --python-version=3.12 %t.c312 2>&1 | FileCheck %s --check-prefix=CELL
# RUN: %mkcode marshal %s %t.c313 --object CELL313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.c313 2>&1 | FileCheck %s --check-prefix=CELL
# CELL: error: 4 STORE_DEREF 1 {{.*}}uses local 'x' as a cell, which holds NULL (no MAKE_CELL or COPY_FREE_VARS made it): CPython does not check, and crashes [value-kind-mismatch]
# CELL: error: 6 LOAD_DEREF 1 {{.*}}uses local 'x' as a cell
# RUN: %mkcode marshal %s %t.f311 --object FREE311
# RUN: %not --code 1 %pyverify check %t.f311 2>&1 | FileCheck %s --check-prefix=FREE
# RUN: %mkcode marshal %s %t.f313 --object FREE313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.f313 2>&1 | FileCheck %s --check-prefix=FREE
# FREE: error: 2 LOAD_DEREF 0 {{.*}}uses local 'x' as a cell, which holds NULL
# RUN: %mkcode marshal %s %t.kw313 --object KW313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.kw313 2>&1 | FileCheck %s --check-prefix=KW
# RUN: %mkcode marshal %s %t.kw314 --object KW314
# RUN: %not --code 1 %pyverify check --python-version=3.14 %t.kw314 2>&1 | FileCheck %s --check-prefix=KW
# KW: error: 16 CALL_KW 1 takes the value on top of the stack, which is a bool or another object that is not an exception (pushed by TO_BOOL at 8), where it needs a tuple: CPython does not check, and crashes [value-kind-mismatch]
# RUN: %mkcode marshal %s %t.kwarg313 --object KWARG313
# RUN: %not --code 1 %pyverify check --python-version=3.13 %t.kwarg313 2>&1 | FileCheck %s --check-prefix=KWARG
# KWARG: error: possibly: 8 CALL_KW 1 takes the value on top of the stack, which is an object of unknown type (pushed by LOAD_FAST at 6), where it needs a tuple
# RUN: %mkcode marshal %s %t.kwok313 --object KWOK313
# RUN: %pyverify check --python-version=3.13 %t.kwok313 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.kwok314 --object KWOK314
# RUN: %pyverify check --python-version=3.14 %t.kwok314 | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.c311ok --object CELLOK311
# RUN: %pyverify check %t.c311ok | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.c313ok --object CELLOK313
# RUN: %pyverify check --python-version=3.13 %t.c313ok | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.f311ok --object FREEOK311
# RUN: %pyverify check %t.f311ok | FileCheck %s --check-prefix=GOOD
# RUN: %mkcode marshal %s %t.f313ok --object FREEOK313
# RUN: %pyverify check --python-version=3.13 %t.f313ok | FileCheck %s --check-prefix=GOOD


def argt(it):
    pass


def kwt(k, f):
    pass


def three(cm, boom, exc):
    pass


def cellt():
    x = None

    def g():
        return x


def outer():
    x = 1

    def freet():
        return x
    return freet


if __name__ == "mkcode":
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Inputs"))
    from rawcode import code

    PAIR = (None, (1, 2))
    FOR311 = code("970064015d0201008c0364005300", "", consts=PAIR)
    FOR312 = code("970064015d02000001008c04040064005300", "", consts=PAIR)
    FOR313 = code("950053014803000020004d0500000b00200053002400", "",
                  consts=PAIR)
    FORARG311 = code("97007c005d0201008c0364005300", "", consts=PAIR,
                     template=argt.__code__)
    SEVEN = (None, 7)
    I6_312 = code("97006401ad065300", "", consts=SEVEN)
    I6_313 = code("9500530137062400", "", consts=SEVEN)
    I10_312 = code("97006401ad0a5300", "", consts=SEVEN)
    I10_313 = code("95005301370a2400", "", consts=SEVEN)
    I10ARG312 = code("97007c00ad0a5300", "", template=argt.__code__)
    I6ARG312 = code("97007c00ad065300", "", template=argt.__code__)
    I6ARG313 = code("9500550037062400", "", template=argt.__code__)
    NOT312 = code("970064010c00ad0a5300", "", consts=SEVEN)
    NOT313 = code("950053012b00370a2400", "", consts=SEVEN)
    TOBOOL313 = code("950053012800000000000000370a2400", "", consts=SEVEN)
    TYPEVAR312 = code("97006401ad07640191015300", "", consts=SEVEN)
    TYPEVAR313 = code("950053013707530150012400", "", consts=SEVEN)
    I11_312 = code("97006401ad0b5300", "", consts=SEVEN)
    I11_313 = code("95005301370b2400", "", consts=SEVEN)
    I2_4_312 = code("970064016400ae045300", "", consts=SEVEN)
    I2_4_313 = code("95005301530038042400", "", consts=SEVEN)
    # f(7, k=NAMES): LOAD_FAST f, PUSH_NULL, LOAD_CONST 7, the names,
    # CALL_KW 1, RETURN_VALUE; the names: ('k',) through TO_BOOL, the
    # parameter k, ('k',) itself.
    KWC = (None, 7, ("k",))
    KW313 = code("5501220053015302280000000000000039012400", "", consts=KWC,
                 template=kwt.__code__)
    KW314 = code("5401210052015202270000000000000037010000000000002300", "",
                 consts=KWC, template=kwt.__code__)
    KWARG313 = code("550122005301550039012400", "", consts=KWC,
                    template=kwt.__code__)
    KWOK313 = code("550122005301530239012400", "", consts=KWC,
                   template=kwt.__code__)
    KWOK314 = code("540121005201520237010000000000002300", "", consts=KWC,
                   template=kwt.__code__)
    CELL = cellt.__code__
    FREE = outer().__code__
    CELL311 = code("970064008a0189015300", "", template=CELL)
    CELL312 = CELL311  # the same opcode numbers in 3.12
    CELL313 = code("950053006d0154012400", "", template=CELL)
    CELLOK311 = code("8701970064008a0189015300", "", template=CELL)
    CELLOK313 = code("5e01950053006d0154012400", "", template=CELL)
    FREE311 = code("970089005300", "", template=FREE)
    FREE313 = code("950054002400", "", template=FREE)
    FREEOK311 = code("9501970089005300", "", template=FREE)
    FREEOK313 = code("3e01950054002400", "", template=FREE)
    MFC = (None, 1, (1, 2), "ab", ("k",))
    MAKEFUNC311 = code("9700640184007c028201", "", consts=MFC,
                       template=three.__code__)
    MAKEFUNC313 = code("950053011a0055026501", "", consts=MFC,
                       template=three.__code__)
    SETATTR313 = code("9500530253036a0155026501", "", consts=MFC,
                      template=three.__code__)
    CONSTKEYS313 = code("9500530153012e0155026501", "", consts=MFC,
                        template=three.__code__)
    CONSTKEYSOK313 = code("9500530153042e0155026501", "", consts=MFC,
                          template=three.__code__)
    CONSTKEYSSHORT313 = code("950053015301530153022e0355026501", "",
                             consts=MFC, template=three.__code__)
    CKC = (None, 1, (1, 2), "ab", "cd")
    CONSTKEYSBUILT313 = code("95005301530153015303530334022e0355026501", "",
                             consts=CKC, template=three.__code__)
    CONSTKEYSBUILTOK313 = code("9500530153015303530434022e0255026501", "",
                               consts=CKC, template=three.__code__)
    SETADD314 = code("8000520352016b0154026801", "", consts=MFC,
                     template=three.__code__)
    SETADDOK314 = code("8000300052016b0154026801", "", consts=MFC,
                       template=three.__code__)
    FORIDX315 = code("800000005102460000001d005100440300006f014a05000009001c0053026701",
                     "", consts=MFC, template=three.__code__)
    FORIDXOK315 = code("80000000510246000000440300006f014a05000009001c0053026701",
                       "", consts=MFC, template=three.__code__)
    SENDIDX315 = code("80000000510051005100690200005302670153026701", "",
                      consts=MFC, template=three.__code__)
    SENDIDXOK315 = code("8000000051001f005100690200005302670153026701", "",
                        consts=MFC, template=three.__code__)
    UNPACK311 = code("970064025c0200007d01640191017c028201", "", consts=MFC,
                     template=three.__code__)
    UNPACK313 = code("95005302750200006e015301500155026501", "", consts=MFC,
                     template=three.__code__)
