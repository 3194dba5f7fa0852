"""The crash shapes the differential sweep found, each in a few instructions.

  families.py --python PY --pyverify BIN [--out DIR]

Builds every shape below as a code object of PY's version (gen_code.py's
spec format, so `run_sweep.py --repro DIR/<ver>-<name>.json` replays one),
asks `pyverify check` about it and runs it alone under PY.  Prints one line
per shape: pyverify's verdict and what the interpreter did.  Exits 1 when a
shape pyverify calls clean crashed (a signal, or the interpreter dying with
the case open), else 0.

The function is (cm, boom, exc, a=7, b=2.5, c="ab"), as in the sweep.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_sweep  # noqa: E402

# co_consts = (None, 0, 1, "ab", (1, 2), ("x",))
NONE, ZERO, ONE, AB, TUPLE, KWNAMES = 0, 1, 2, 3, 4, 5
DIV0 = [("LOAD_CONST", ONE), ("LOAD_CONST", ZERO), ("BINARY_OP", 11),
        ("RETURN_VALUE", 0)]
H = [1, 0, False]                         # handler tag: label 1, depth 0


def null_under(*ops):
    """A NULL, then ops (which read it in place), then raise exc: no pop
    meets the NULL."""
    return [("PUSH_NULL", 0), *ops, ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)]


SHAPES = {
    # the thread's handled exception becomes the int 7; 1/0 then chains it
    "push-exc-info-of-int": [("LOAD_FAST", 3), ("PUSH_EXC_INFO", 0)] + DIV0,
    # POP_EXCEPT restores "ab" as the handled exception; 1/0 chains it
    "pop-except-of-str": [("LOAD_FAST", 5), ("POP_EXCEPT", 0)] + DIV0,
    # RERAISE of values that are not exceptions
    "reraise-of-int": [("LOAD_FAST", 3), ("RERAISE", 0)],
    "reraise-of-argument": [("LOAD_FAST", 0), ("RERAISE", 0)],
    "reraise-of-None": [("LOAD_CONST", NONE), ("RERAISE", 0)],
    # RERAISE 1 whose lasti slot is a str (a real exception on top)
    "reraise-lasti-of-str": [("LOAD_CONST", ONE, H), ("LOAD_CONST", ZERO, H),
                             ("BINARY_OP", 11, H), ("RETURN_VALUE", 0, H),
                             1, ("LOAD_CONST", AB), ("SWAP", 2), ("RERAISE", 1)],
    # WITH_EXCEPT_START over an int where the exception goes (boom as exit)
    "with-except-start-of-int": [("LOAD_FAST", 1), ("LOAD_CONST", ZERO),
                                 ("LOAD_CONST", NONE), ("LOAD_FAST", 3),
                                 ("WITH_EXCEPT_START", 0), ("RETURN_VALUE", 0)],
    # CALL_INTRINSIC_1 (3.12+) on an int where the intrinsic wants a list,
    # an exception, ...: 6 LIST_TO_TUPLE reads the int as a list -- a
    # constant (known wrong: reported), an argument (a=7: a stated
    # precondition, PRECONDITIONS: a resume function split inside a
    # star-argument call receives its list as an argument)
    "intrinsic-list-to-tuple-of-int": [("LOAD_CONST", ONE),
                                       ("CALL_INTRINSIC_1", 6),
                                       ("RETURN_VALUE", 0)],
    "intrinsic-list-to-tuple-of-argument": [("LOAD_FAST", 3),
                                            ("CALL_INTRINSIC_1", 6),
                                            ("RETURN_VALUE", 0)],
    # The intrinsics that build a typing object (3.12+: TYPEVAR,
    # TYPEVAR_WITH_BOUND, ...) return that object whatever they are given
    # (a TypeVar named by an iterator): iterated by FOR_ITER (no
    # tp_iternext) or appended to as a list, it crashes.  Found by the
    # sweep with --cells (3.13 seed 5151 case 1188: CALL_INTRINSIC_2 2 in a
    # loop's STORE_FAST's place, its TypeVar the next FOR_ITER's iterator).
    "intrinsic-typevar-iterated": "FOR_LOOP_OF_TYPEVAR",
    "intrinsic-typevar-appended-to": [("LOAD_CONST", AB),
                                      ("CALL_INTRINSIC_1", 7),
                                      ("LOAD_CONST", ONE), ("LIST_APPEND", 1),
                                      ("RETURN_VALUE", 0)],
    "intrinsic-stopiteration-error-of-int": [("LOAD_FAST", 3),
                                             ("CALL_INTRINSIC_1", 3),
                                             ("RETURN_VALUE", 0)],
    "intrinsic-async-gen-wrap-of-int": [("LOAD_FAST", 3), ("CALL_INTRINSIC_1", 4),
                                        ("RETURN_VALUE", 0)],
    "intrinsic-typevar-of-int": [("LOAD_FAST", 3), ("CALL_INTRINSIC_1", 7),
                                 ("RETURN_VALUE", 0)],
    "intrinsic-subscript-generic-of-int": [("LOAD_CONST", ONE),
                                           ("CALL_INTRINSIC_1", 10),
                                           ("RETURN_VALUE", 0)],
    # ... of UNARY_NOT's bool through a local (the sweep's 3.12 case 1928 of
    # seed 2024): the interpreter fixes that result's type, the check types it
    "intrinsic-subscript-generic-of-not": [("LOAD_CONST", NONE),
                                           ("UNARY_NOT", 0), ("STORE_FAST", 6),
                                           ("LOAD_FAST", 6),
                                           ("CALL_INTRINSIC_1", 10),
                                           ("RETURN_VALUE", 0)],
    # The same of an argument (a=7): a stated precondition (PRECONDITIONS).
    "intrinsic-subscript-generic-of-argument": [("LOAD_FAST", 3),
                                                ("CALL_INTRINSIC_1", 10),
                                                ("RETURN_VALUE", 0)],
    # CALL_INTRINSIC_2 1 PREP_RERAISE_STAR: (orig, list of exceptions)
    "intrinsic2-prep-reraise-star-of-ints": [("LOAD_FAST", 3), ("LOAD_FAST", 4),
                                             ("CALL_INTRINSIC_2", 1),
                                             ("RETURN_VALUE", 0)],
    # CALL_INTRINSIC_2 0: 3.12's table of binary intrinsics has no entry 0
    # (a NULL function pointer: SIGSEGV on 3.12.1; the 3.12 sweep of seed
    # 20261207, case 12733); 3.13 on raise SystemError there.
    "intrinsic2-invalid-0": [("LOAD_FAST", 3), ("LOAD_FAST", 4),
                             ("CALL_INTRINSIC_2", 0), ("RETURN_VALUE", 0)],
    # 3.13+'s CALL_KW of keyword names that are not a tuple: ('x',) made a
    # bool by TO_BOOL, boom called with it (the 3.13 sweep of seed 20261207,
    # case 21840, minimised).
    "call-kw-names-of-bool": [("LOAD_FAST", 1), ("PUSH_NULL", 0),
                              ("LOAD_FAST", 3), ("LOAD_CONST", KWNAMES),
                              ("TO_BOOL", 0), ("CALL_KW", 1),
                              ("RETURN_VALUE", 0)],
    # FOR_ITER over a tuple, not an iterator (GET_ITER left out): the
    # tuple's tp_iternext is NULL.  (3.11: the exit is after the loop;
    # 3.12+: at END_FOR, see FOR_LOOP below.)
    "for-iter-of-tuple": "FOR_LOOP",
    # FOR_ITER of an argument (b=2.5) that is not an iterator: a stated
    # precondition (PRECONDITIONS; the 3.12 sweep of seed 20261207, case
    # 9494, minimised).
    "for-iter-of-argument": "FOR_LOOP_OF_ARGUMENT",
    # FOR_ITER of the item it pushed ("ab" iterated: the str "a"), the
    # iterator swapped out and popped: an object of unknown type to the
    # kinds, so the same stated precondition (the 3.11 sweeps of seeds 4242
    # and 4343: an inserted SWAP 3 feeding MAP_ADD the iterator, a
    # COMPARE_OP in place of the loop's STORE_FAST).
    "for-iter-of-its-item": "FOR_LOOP_OF_ITEM",
    # LIST_APPEND to a constant that is not a list: known wrong (reported);
    # to an argument (a=7): a stated precondition (the 3.11 sweep of seed
    # 777, case 632).
    "list-append-to-str": [("LOAD_CONST", AB), ("LOAD_CONST", ONE),
                           ("LIST_APPEND", 1), ("RETURN_VALUE", 0)],
    "list-append-to-argument": [("LOAD_FAST", 3), ("LOAD_CONST", ONE),
                                ("LIST_APPEND", 1), ("RETURN_VALUE", 0)],
    # MAP_ADD reaching a with's bound __exit__ (the 3.13 sweep of seed 24,
    # case 2767); BEFORE_WITH's layout, so 3.11-3.13 (see main()).
    "map-add-to-with-exit": [("LOAD_FAST", 0), ("BEFORE_WITH", 0),
                             ("LOAD_CONST", AB), ("LOAD_CONST", ONE),
                             ("MAP_ADD", 2), ("POP_TOP", 0),
                             ("RETURN_VALUE", 0)],
    # A NULL in a slot an instruction reads without popping it (the 3.11
    # sweep with --cells, seed 5252 case 6907: a CALL deleted after its
    # PRECALL, whose callable slot held a NULL; then a raise, so no pop
    # ever met the NULL): 3.11's PRECALL reads the callable's type
    # (PEEK(oparg + 1)); LIST_APPEND adds to a NULL list.
    # (The constants first: the sweep's co_stacksize, from dis.stack_effect,
    # counts PRECALL's -1, which its real effect does not have.)
    "precall-of-null": [("LOAD_CONST", NONE)] * 4 + [("POP_TOP", 0)] * 4 + [
        ("PUSH_NULL", 0), ("PUSH_NULL", 0), ("LOAD_FAST", 3), ("PRECALL", 1),
        ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    "list-append-to-null": null_under(("LOAD_CONST", ONE),
                                      ("LIST_APPEND", 1)),
    # The same of SET_ADD's and SET_UPDATE's set, MATCH_SEQUENCE's and
    # MATCH_MAPPING's and MATCH_KEYS's subject; DICT_UPDATE and GET_LEN
    # raise SystemError, CHECK_EXC_MATCH finds no match (controls).
    "set-add-to-null": null_under(("LOAD_CONST", ONE), ("SET_ADD", 1)),
    "set-update-of-null": null_under(("LOAD_CONST", TUPLE),
                                     ("SET_UPDATE", 1)),
    "dict-update-of-null": null_under(("BUILD_MAP", 0), ("DICT_UPDATE", 1)),
    "get-len-of-null": null_under(("GET_LEN", 0)),
    "match-sequence-of-null": null_under(("MATCH_SEQUENCE", 0)),
    "match-mapping-of-null": null_under(("MATCH_MAPPING", 0)),
    "check-exc-match-of-null": null_under(("LOAD_FAST", 2),
                                          ("CHECK_EXC_MATCH", 0)),
    "match-keys-of-null": null_under(("LOAD_CONST", KWNAMES),
                                     ("MATCH_KEYS", 0)),
    # More NULLs read in place or popped on one edge only, found by
    # null_probe.py (each SIGSEGVs 3.11-3.13 and was clean; Pyodide's 3.14
    # and 3.15 do not trap on a NULL read: they run, and are reported):
    # GET_ANEXT's and IMPORT_FROM's object, SEND's receiver, MATCH_KEYS's
    # keys, RERAISE 1's lasti, DICT_MERGE's callable (read for a bad **
    # argument's message; the other call slot NULL is a control: TypeError),
    # POP_JUMP_IF_NONE's value (NULL is not None: DECREF on the fall-through)
    # and 3.11's JUMP_IF_TRUE_OR_POP's.
    "get-anext-of-null": null_under(("GET_ANEXT", 0)),
    "import-from-of-null": null_under(("IMPORT_FROM", 0)),
    "send-of-null": "SEND_OF_NULL",
    "match-keys-keys-of-null": [("LOAD_CONST", ONE)] + null_under(
        ("MATCH_KEYS", 0)),
    "reraise-lasti-of-null": [("LOAD_CONST", ONE, H), ("LOAD_CONST", ZERO, H),
                              ("BINARY_OP", 11, H), ("RETURN_VALUE", 0, H),
                              1, ("PUSH_NULL", 0), ("SWAP", 2),
                              ("RERAISE", 1)],
    "dict-merge-callable-null": "DICT_MERGE_NULL_CALLABLE",
    "dict-merge-other-call-slot-null": "DICT_MERGE_NULL_OTHER",
    "pop-jump-if-none-of-null": "POP_JUMP_IF_NONE_OF_NULL",
    "jump-if-true-or-pop-of-null": "JUMP_IF_TRUE_OR_POP_OF_NULL",
    # What MAKE_FUNCTION takes as its code object (an int), 3.13's
    # SET_FUNCTION_ATTRIBUTE as its function (a str), 3.13's
    # BUILD_CONST_KEY_MAP as its keys (an int; 3.11 and 3.12 raise
    # SystemError: a control there): null_probe.py's controls, SIGSEGV.
    "make-function-of-int": [("LOAD_CONST", ONE), ("MAKE_FUNCTION", 0),
                             ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    "set-function-attribute-of-str": [("LOAD_CONST", TUPLE),
                                      ("LOAD_CONST", AB),
                                      ("SET_FUNCTION_ATTRIBUTE", 1),
                                      ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    "build-const-key-map-of-int": [("LOAD_CONST", ONE), ("LOAD_CONST", ONE),
                                   ("BUILD_CONST_KEY_MAP", 1),
                                   ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    # ... of keys shorter than its argument ((1, 2) for 3 values)
    "build-const-key-map-of-short-tuple": [("LOAD_CONST", ONE)] * 3 + [
        ("LOAD_CONST", TUPLE), ("BUILD_CONST_KEY_MAP", 3), ("LOAD_FAST", 2),
        ("RAISE_VARARGS", 1)],
    # 3.14's SET_ADD to a str: traps 3.14.2 (null_probe.py --fill str);
    # 3.11-3.13 raise SystemError, 3.15 TypeError (controls)
    "set-add-to-str": [("LOAD_CONST", AB), ("LOAD_CONST", ONE),
                       ("SET_ADD", 1), ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    # 3.15: None where FOR_ITER's and SEND's index-or-NULL goes (over the
    # iterator, over the receiver) is taken for GET_ITER's index: traps
    # 3.15.0rc1 (null_probe.py --fill none)
    "for-iter-index-of-none": "FOR_LOOP_INDEX_OF_NONE",
    "send-index-of-none": "SEND_INDEX_OF_NONE",
    # LIST_APPEND to the int UNPACK_SEQUENCE left of a constant (1, 2) (the
    # 3.11 sweep of seed 6161, case 5376)
    "list-append-to-unpacked-int": [("LOAD_CONST", TUPLE),
                                    ("UNPACK_SEQUENCE", 2), ("STORE_FAST", 3),
                                    ("LOAD_CONST", ONE), ("LIST_APPEND", 1),
                                    ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)],
    # CHECK_EXC_MATCH of an int against a class (harmless: a control)
    "check-exc-match-of-int": [("LOAD_FAST", 3), ("LOAD_FAST", 2),
                               ("CHECK_EXC_MATCH", 0), ("RETURN_VALUE", 0)],
}


# Shapes whose fault is in a value the function receives: no static check
# can know an argument's type, and CPython's own compiler hands these
# instructions values the typed stack cannot type either (SUBSCRIPT_GENERIC
# gets a cell's content), so pyverify states them as preconditions of the
# code (docs/checks.md, value-kind-mismatch) instead of reporting them.
# They are built and run like the others and printed, but a crash among
# them is not a miss.
PRECONDITIONS = {"intrinsic-subscript-generic-of-argument",
                 "intrinsic-list-to-tuple-of-argument",
                 "for-iter-of-argument", "for-iter-of-its-item",
                 "list-append-to-argument"}


def for_loop(version, iterable=(("LOAD_CONST", TUPLE),),
             body=(("STORE_FAST", 3),)):
    """LOAD_CONST (1, 2) (no GET_ITER), FOR_ITER, STORE_FAST a, JUMP_BACKWARD,
    the version's loop exit, return None; `iterable` and `body` replace
    the load and the store."""
    exit_ = [("END_FOR", 0)] + ([("POP_ITER", 0)] if version >= "3.14" else
                                [("POP_TOP", 0)] if version >= "3.13" else [])
    return list(iterable) + [1, ("FOR_ITER", 0, None, 2)] + list(body) + \
        [("JUMP_BACKWARD", 0, None, 1)] + \
        ([2] if version == "3.11" else [2] + exit_) + \
        [("LOAD_CONST", NONE), ("RETURN_VALUE", 0)]


# Shapes only some versions have (their instructions): name -> versions.
ONLY = {"send-of-null": ("3.12", "3.13", "3.14", "3.15"),
        "jump-if-true-or-pop-of-null": ("3.11",),
        "set-function-attribute-of-str": ("3.13", "3.14", "3.15"),
        "build-const-key-map-of-int": ("3.11", "3.12", "3.13"),
        "build-const-key-map-of-short-tuple": ("3.11", "3.12", "3.13"),
        "for-iter-index-of-none": ("3.15",),
        "send-index-of-none": ("3.15",)}


def dict_merge(version, null_callable):
    """f(**1) with a NULL in one of the two call slots: the callable's
    (3.11, 3.12: above the NULL; 3.13+: under it) or the other."""
    slots = [("LOAD_CONST", ONE), ("PUSH_NULL", 0)]
    if (version >= "3.13") == null_callable:
        slots.reverse()
    return slots + [("LOAD_CONST", TUPLE), ("BUILD_MAP", 0),
                    ("LOAD_CONST", ONE), ("DICT_MERGE", 1), ("LOAD_FAST", 2),
                    ("RAISE_VARARGS", 1)]


def branch_of_null(op):
    """A NULL, then op jumping to a second raise."""
    return [("PUSH_NULL", 0), (op, 0, None, 2), ("LOAD_FAST", 2),
            ("RAISE_VARARGS", 1), 2, ("LOAD_FAST", 2), ("RAISE_VARARGS", 1)]


# The shapes built per version, by name.
BUILDERS = {
    "FOR_LOOP": for_loop,
    "FOR_LOOP_OF_ARGUMENT": lambda v: for_loop(v, [("LOAD_FAST", 4)]),
    "FOR_LOOP_OF_TYPEVAR": lambda v: for_loop(
        v, [("LOAD_CONST", AB), ("CALL_INTRINSIC_1", 7)]),
    "FOR_LOOP_OF_ITEM": lambda v: for_loop(
        v, [("LOAD_CONST", AB), ("GET_ITER", 0)], [("SWAP", 2), ("POP_TOP", 0)]),
    # 3.15's SEND: (receiver, null, v); before: (receiver, v)
    "SEND_OF_NULL": lambda v: [("PUSH_NULL", 0)] * (2 if v >= "3.15" else 1)
    + [("LOAD_CONST", NONE)] + branch_of_null("SEND")[1:],
    "DICT_MERGE_NULL_CALLABLE": lambda v: dict_merge(v, True),
    "DICT_MERGE_NULL_OTHER": lambda v: dict_merge(v, False),
    "POP_JUMP_IF_NONE_OF_NULL": lambda v: branch_of_null(
        "POP_JUMP_FORWARD_IF_NONE" if v == "3.11" else "POP_JUMP_IF_NONE"),
    "JUMP_IF_TRUE_OR_POP_OF_NULL": lambda v: branch_of_null(
        "JUMP_IF_TRUE_OR_POP"),
    "SEND_INDEX_OF_NONE": lambda v: [("LOAD_CONST", NONE)] * 3
    + branch_of_null("SEND")[1:],
    "FOR_LOOP_INDEX_OF_NONE": lambda v: for_loop(
        v, [("LOAD_CONST", TUPLE), ("GET_ITER", 0), ("POP_TOP", 0),
            ("LOAD_CONST", NONE)]),
}


def spec_of(version, name, shape):
    if isinstance(shape, str):
        shape = BUILDERS[shape](version)
    items = [{"op": "RESUME", "arg": 0, "t": None, "h": None}]
    for s in shape:
        if isinstance(s, int):
            items.append({"label": s})
        else:
            items.append({"op": s[0], "arg": s[1],
                          "t": s[3] if len(s) > 3 else None,
                          "h": s[2] if len(s) > 2 else None})
    return {"version": version, "seed": 0, "index": 0, "name": name,
            "items": items, "table_edits": [], "stacksize_delta": 0,
            "lines": "none",
            "consts": [["none", None], ["int", 0], ["int", 1], ["str", "ab"],
                       ["tuple", [["int", 1], ["int", 2]]],
                       ["tuple", [["str", "x"]]]],
            "varnames": ["cm", "boom", "exc", "a", "b", "c", "fuel"],
            "names": ["x"],
            "args": {"suppress": False, "boom": "return", "exc": "ValueError"},
            "tags": [name]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    run_sweep.add_case_args(ap, "differential-families")
    a = ap.parse_args()
    version = run_sweep.interpreter_version(a.python)
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for name, shape in SHAPES.items():
        if name.startswith("intrinsic") and version == "3.11":
            continue   # no CALL_INTRINSIC_1 before 3.12
        if name.startswith("precall") and version != "3.11":
            continue   # PRECALL is 3.11's
        if name.startswith("call-kw") and version < "3.13":
            continue   # no CALL_KW before 3.13
        if name.endswith("with-exit") and version >= "3.14":
            continue   # no BEFORE_WITH from 3.14
        if version not in ONLY.get(name, (version,)):
            continue
        spec = spec_of(version, name, shape)
        base = os.path.join(a.out, f"{version}-{name}")
        with open(base + ".json", "w") as f:
            json.dump({"spec": spec}, f, indent=1)
        if not run_sweep.build_spec(a.python, spec, base + ".marshal"):
            print(f"{version} {name:28} cannot build")
            failed = 1
            continue
        by_file, errs = run_sweep.pyverify_check(a.pyverify, version,
                                                 [base + ".marshal"])
        diags = by_file.get(base + ".marshal", [])
        clean = not errs and run_sweep.is_clean(diags)
        ran = run_sweep.run_alone(a.python, dict(spec, file=base + ".marshal"),
                                  a.out, a.timeout, f"family-{version}")
        verdict = "CLEAN" if clean else "error " + ",".join(
            sorted({x["check"] for x in diags if x["severity"] == "error"}))
        bad = clean and ran.startswith("crash")
        note = "   <-- MISSED" if bad else ""
        if bad and name in PRECONDITIONS:
            bad, note = False, "   (a stated precondition: docs/checks.md)"
        failed |= bad
        print(f"{version} {name:28} pyverify: {verdict:40} run: {ran}{note}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
