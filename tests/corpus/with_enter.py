"""Where a with item is entered, per version, for the AST oracle
(test_block_stack_ast.py), read off `pyverify analyze --format=json`'s
instruction rows.

3.11-3.13 enter with one instruction, BEFORE_WITH / BEFORE_ASYNC_WITH. 3.14
has none: an item is `COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3;
LOAD_SPECIAL __enter__; CALL 0` (`__aexit__` / `__aenter__`, then the await,
for async with), every instruction of it carrying the item's context
expression's span, as 3.13's BEFORE_WITH does. The anchor of an item is the
offset of its enter instruction (3.14: the CALL 0 that calls __enter__);
any offset of a 3.14 enter sequence that pyverify's block stack names as a
with's `enter` is read as that anchor, so the oracle does not depend on
which instruction of the sequence the recogniser reports.
"""

import sys

ONE_INSTRUCTION = ("BEFORE_WITH", "BEFORE_ASYNC_WITH")
SEQUENCE_314 = ("COPY", "LOAD_SPECIAL", "SWAP", "SWAP", "LOAD_SPECIAL", "CALL")
ENTER_NAMES = ("__enter__", "__aenter__")
# The row keys enter_sites reads: argrepr names a LOAD_SPECIAL's method, and
# only 3.14 code, run under its own interpreter, has LOAD_SPECIAL (an
# analyze row without argrepr is a quarter smaller; a LOAD_SPECIAL row
# without it would match no enter, and the oracle would fail, not pass).
ENTER_ROW_KEYS = ("offset", "opname", "line", "col", "end_line", "end_col") \
    + (("argrepr",) if sys.version_info >= (3, 14) else ())


def enter_sites(insts):
    """(enters, alias, after): enters maps an item's span (line, col,
    end_line, end_col) to its anchors in code order; alias maps every
    offset of an enter sequence to its anchor; after maps an anchor to the
    offset of the instruction that follows it (the enter result's STORE or
    POP_TOP, or the async with's GET_AWAITABLE)."""
    enters, alias, after = {}, {}, {}
    for k, ins in enumerate(insts):
        seq = None
        if ins["opname"] in ONE_INSTRUCTION:
            seq = [ins]
        elif ins["opname"] == "LOAD_SPECIAL" and ins.get("argrepr") in ENTER_NAMES \
                and 4 <= k and k + 1 < len(insts):
            cand = insts[k - 4:k + 2]
            if tuple(c["opname"] for c in cand) == SEQUENCE_314:
                seq = cand
        if seq is None:
            continue
        anchor = seq[-1]["offset"]
        key = (ins["line"], ins["col"], ins["end_line"], ins["end_col"])
        enters.setdefault(key, []).append(anchor)
        for s in seq:
            alias[s["offset"]] = anchor
        nxt = k + (len(seq) - seq.index(ins))
        if nxt < len(insts):
            after[anchor] = insts[nxt]["offset"]
    return enters, alias, after
