# with-handler-mismatch, shared handlers: each with needs its own handler,
# because after a suppressed exception the handler continues after one
# particular with statement. Two with sites may lead to one handler only if
# they are the same with: a resume prologue re-entering a with whose context
# then flows into the original body (the contexts meet in one slot and
# share its exit), which the rewriter fixtures exercise.
import os, sys
HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import breakcode as bc

def raises(a, b):
    with a:
        raise E
    with b:
        raise E

# raises: 4 BEFORE_WITH (a); 22 its handler; 46 BEFORE_WITH (b); 64 its
# handler. Table: 6 to 20 -> 22 [1] lasti, ..., 48 to 62 -> 64 [1] lasti.

def returns(a, b):
    with a:
        return g()
    with b:
        return h()

# returns: 4 BEFORE_WITH (a), exit call at 46, handler 60; 84 BEFORE_WITH
# (b), exit call at 126, handler 140. Table: 6 to 32 -> 60 [1] lasti, ...,
# 86 to 112 -> 140 [1] lasti.

def loop(cm, n):
    for i in range(n):
        with cm:
            g(i)
            h(i)

# loop, split by the rewriter (python/pyverify_rewriter) at the call of g:
# the resume function's prologue re-enters the with (its BEFORE_WITH) and
# jumps into the copy of the loop body, which enters the with again (the
# original BEFORE_WITH) on the next iterations. The rewriter sends both
# bodies to a new handler whose suppress path raises (its sentinel); here
# they are sent to the original handler instead, whose suppress path goes on
# with the loop, as eager execution would. The two sites are one with:
# their contexts meet in one slot where the prologue's jump lands, so the
# one that never exits on its own becomes the other's.


def merged_resume():
    from pyverify_rewriter import break_points, rewrite
    bp = next(b for b in break_points(loop) if b.eligible and b.contexts)
    code = rewrite(loop, bp.offset).resume
    enters = bc.offsets(code, "BEFORE_WITH")
    assert len(enters) == 2, enters
    table = bc.entries(code)
    prologue = [k for k, t in enumerate(table) if t.start == enters[0] + 2][0]
    new = table[prologue].target
    # The with handlers: the new one and the original one (left unreachable).
    withs = [o for o in bc.offsets(code, "PUSH_EXC_INFO")
             if o + 2 in bc.offsets(code, "WITH_EXCEPT_START")]
    assert len(withs) == 2 and new in withs, withs
    original = [o for o in withs if o != new][0]
    for k, t in enumerate(table):
        if t.target == new:
            code = bc.set_entry(code, k, target=original)
    return code


if __name__ == "mkcode":
    assert bc.offsets(raises.__code__, "BEFORE_WITH") == [4, 46]
    assert bc.offsets(returns.__code__, "BEFORE_WITH") == [4, 84]

    # Two withs that exit at different places (their exit calls at 46 and
    # 126): b's body sent to a's handler. A suppressed exception in b's body
    # continues after `with a`, running `with b` again.
    # RUN: %mkcode marshal %s %t.returns --object RETURNS_BACK
    # RUN: %not --code 1 %pyverify check %t.returns | FileCheck %s --check-prefix=RETURNS
    RETURNS_BACK = bc.set_entry(returns.__code__, 3, target=60)
    # RETURNS: error: the with bodies entered at 4 and 84 lead to the same handler 60 but are different withs: they exit at different places; each with needs its own handler (after a suppressed exception the shared one continues after only one of them) [with-handler-mismatch]
    # RETURNS-NEXT: in returns (line {{[0-9]+}}) at offset 86: POP_TOP
    # RETURNS-NEXT: note: the other with is entered here (offset 4)
    # RETURNS-NEXT: note: the shared handler (offset 60)

    # Two withs neither of which exits normally (their bodies always raise):
    # b's body sent to a's handler. Every context is still entered and
    # exited once, but a suppressed exception in b's body continues after
    # `with a` and enters b again: it is a loop the source does not have.
    # Nothing merges the two contexts, so they are different withs.
    # RUN: %mkcode marshal %s %t.raises --object RAISES_BACK
    # RUN: %not --code 1 %pyverify check %t.raises | FileCheck %s --check-prefix=RAISES
    RAISES_BACK = bc.set_entry(raises.__code__, 3, target=22)
    # RAISES: error: the with bodies entered at 4 and 46 lead to the same handler 22 but are different withs: neither exits normally, and neither's context becomes the other's; each with needs its own handler (after a suppressed exception the shared one continues after only one of them) [with-handler-mismatch]
    # RAISES-NEXT: in raises (line {{[0-9]+}}) at offset 48: POP_TOP

    # The other way round: a's body sent to b's handler. a's own handler,
    # and with it `with b`, become unreachable: the code that runs is
    # `with a: raise E` followed by the code after `with b`, balanced, so
    # check (which judges reachable code) reports nothing; what shows is the
    # dead with, in the unreachable-code remark.
    # RUN: %mkcode marshal %s %t.kills --object RAISES_FORWARD
    # RUN: %pyverify check %t.kills | FileCheck %s --check-prefix=KILLS
    # RUN: %pyverify check --checks=unreachable-code %t.kills | FileCheck %s --check-prefix=KILLS-REMARK
    RAISES_FORWARD = bc.set_entry(raises.__code__, 0, target=64)
    # KILLS: 0 error(s), 0 warning(s), 0 remark(s)
    # KILLS-REMARK: remark: 16 instruction(s) from 22 to 62 are unreachable [unreachable-code]

    # RUN: %mkcode marshal %s %t.merged --object MERGED
    # RUN: %pyverify check %t.merged | FileCheck %s --check-prefix=MERGED
    MERGED = merged_resume()
    # MERGED: 0 error(s), 0 warning(s), 0 remark(s)
