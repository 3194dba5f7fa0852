"""Context balance that depends on branch correlation (Python 3.11).

Each case enters a context manager under a condition and exits it under the
*same* condition later (explicit ``cm.__enter__()`` / ``cm.__exit__(None,
None, None)`` on a local, or a ``with`` statement inside the branch). The
dataflow pass of ``pyverify check`` merges the entered / not-entered states
at the join after the first ``if`` and can only say "possibly" (a warning);
the SMT prover (``pyverify prove``) correlates the two tests and proves that
every path, including every exception path, exits exactly once what it
entered.

Every case ``NAME`` has a FLIPPED twin ``NAME__flipped`` in which exactly one
``if`` is inverted, so one path enters without exiting (or exits without
entering): the prover must refute it with a counterexample.

Assumptions the cases rely on (those of docs/context-balance.md): a local
holding an entered manager is bound and has ``__enter__``/``__exit__``; the
truth value of an unchanged local is the same each time it is tested (a
``POP_JUMP_IF_*`` on a value whose ``__bool__`` already returned once does
not raise and gives the same answer). The ``is not None`` cases need no
truthiness at all (``POP_JUMP_FORWARD_IF_[NOT_]NONE`` cannot raise).

``CASES`` maps a name to ``(function, flipped_function, what)``.
"""


# 1. The example of the brief: the same flag tested twice.
def enter_if_flag(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


def enter_if_flag__flipped(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if not flag:
            cm.__exit__(None, None, None)


# 2. Tested through `not` both times.
def enter_unless_flag(flag, cm, work):
    if not flag:
        cm.__enter__()
    try:
        work()
    finally:
        if not flag:
            cm.__exit__(None, None, None)


def enter_unless_flag__flipped(flag, cm, work):
    if not flag:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


# 3. `is not None` on the manager itself (POP_JUMP_FORWARD_IF_NONE).
def enter_if_not_none(cm, work):
    if cm is not None:
        cm.__enter__()
    try:
        return work()
    finally:
        if cm is not None:
            cm.__exit__(None, None, None)


def enter_if_not_none__flipped(cm, work):
    if cm is not None:
        cm.__enter__()
    try:
        return work()
    finally:
        if cm is None:
            cm.__exit__(None, None, None)


# 4. The flag copied into a local; enter tests the copy, exit the argument.
def enter_if_copied_flag(flag, cm, work):
    use = flag
    if use:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


def enter_if_copied_flag__flipped(flag, cm, work):
    use = flag
    if use:
        cm.__enter__()
    try:
        work()
    finally:
        if not flag:
            cm.__exit__(None, None, None)


# 5. A bool computed once (IS_OP result) and stored in a local.
def enter_if_enabled(cm, work):
    enabled = cm is not None
    if enabled:
        cm.__enter__()
    try:
        work()
    finally:
        if enabled:
            cm.__exit__(None, None, None)


def enter_if_enabled__flipped(cm, work):
    enabled = cm is not None
    if not enabled:
        cm.__enter__()
    try:
        work()
    finally:
        if enabled:
            cm.__exit__(None, None, None)


# 6. Two independent flags, two managers, exited in LIFO order.
def two_flags(a, b, cm1, cm2, work):
    if a:
        cm1.__enter__()
    try:
        if b:
            cm2.__enter__()
        try:
            work()
        finally:
            if b:
                cm2.__exit__(None, None, None)
    finally:
        if a:
            cm1.__exit__(None, None, None)


def two_flags__flipped(a, b, cm1, cm2, work):
    if a:
        cm1.__enter__()
    try:
        if b:
            cm2.__enter__()
        try:
            work()
        finally:
            if not b:
                cm2.__exit__(None, None, None)
    finally:
        if a:
            cm1.__exit__(None, None, None)


# 7. Nested: the inner manager only when the outer one is entered too.
def nested_flags(outer, inner, cm1, cm2, work):
    if outer:
        cm1.__enter__()
    try:
        if outer:
            if inner:
                cm2.__enter__()
            try:
                work()
            finally:
                if inner:
                    cm2.__exit__(None, None, None)
        else:
            work()
    finally:
        if outer:
            cm1.__exit__(None, None, None)


def nested_flags__flipped(outer, inner, cm1, cm2, work):
    if outer:
        cm1.__enter__()
    try:
        if outer:
            if inner:
                cm2.__enter__()
            try:
                work()
            finally:
                if inner:
                    cm2.__exit__(None, None, None)
        else:
            work()
    finally:
        if not outer:
            cm1.__exit__(None, None, None)


# 8. A `with` inside `if flag`, plus an explicit manager entered and exited
#    under the same flag around it.
def with_inside_if(flag, cm, res, work):
    if flag:
        res.__enter__()
    try:
        if flag:
            with cm:
                work()
        else:
            work()
    finally:
        if flag:
            res.__exit__(None, None, None)


def with_inside_if__flipped(flag, cm, res, work):
    if not flag:
        res.__enter__()
    try:
        if flag:
            with cm:
                work()
        else:
            work()
    finally:
        if flag:
            res.__exit__(None, None, None)


# 9. Exit in an `except` that re-raises, and again on the normal path (no
#    `finally`): two exit sites under the same flag.  A bare `except:` on
#    purpose: `except BaseException:` loads a global in the handler, and if
#    that load raised, the exception would leave with the manager entered
#    (the prover finds that path).
def exit_in_except_and_after(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        r = work()
    except:  # noqa: E722
        if flag:
            cm.__exit__(None, None, None)
        raise
    if flag:
        cm.__exit__(None, None, None)
    return r


def exit_in_except_and_after__flipped(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        r = work()
    except:  # noqa: E722
        if flag:
            cm.__exit__(None, None, None)
        raise
    if not flag:
        cm.__exit__(None, None, None)
    return r


# 10. Early returns inside the protected region.
def early_return(flag, cm, work, other):
    if flag:
        cm.__enter__()
    try:
        if work():
            return 1
        other()
        return 2
    finally:
        if flag:
            cm.__exit__(None, None, None)


def early_return__flipped(flag, cm, work, other):
    if flag:
        cm.__enter__()
    try:
        if work():
            return 1
        other()
        return 2
    finally:
        if flag:
            pass
        else:
            cm.__exit__(None, None, None)


# 11. if/else: one of two managers, chosen by the flag, exited by the same
#     choice.
def one_of_two(flag, cm1, cm2, work):
    if flag:
        cm1.__enter__()
    else:
        cm2.__enter__()
    try:
        work()
    finally:
        if flag:
            cm1.__exit__(None, None, None)
        else:
            cm2.__exit__(None, None, None)


def one_of_two__flipped(flag, cm1, cm2, work):
    if flag:
        cm1.__enter__()
    else:
        cm2.__enter__()
    try:
        work()
    finally:
        if not flag:
            cm1.__exit__(None, None, None)
        else:
            cm2.__exit__(None, None, None)


# 12. A `with` under the flag and an explicit enter/exit under the negation:
#     exactly one of the two is active around the work.
def with_or_explicit(flag, cm, work):
    if flag:
        with cm:
            work()
        return
    if not flag:
        cm.__enter__()
    try:
        work()
    finally:
        if not flag:
            cm.__exit__(None, None, None)


def with_or_explicit__flipped(flag, cm, work):
    if flag:
        with cm:
            work()
        return
    if not flag:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


# 13. Two tests of the same flag with unrelated work (and a branch on
#     another value) between them.
def flag_with_other_branch(flag, verbose, cm, work, log):
    if flag:
        cm.__enter__()
    try:
        if verbose:
            log()
        work()
    finally:
        if flag:
            cm.__exit__(None, None, None)


def flag_with_other_branch__flipped(flag, verbose, cm, work, log):
    if flag:
        cm.__enter__()
    try:
        if verbose:
            log()
        work()
    finally:
        if not flag:
            cm.__exit__(None, None, None)


CASES = {
    "enter_if_flag": (enter_if_flag, enter_if_flag__flipped,
                      "the same flag tested twice"),
    "enter_unless_flag": (enter_unless_flag, enter_unless_flag__flipped,
                          "`not flag` both times"),
    "enter_if_not_none": (enter_if_not_none, enter_if_not_none__flipped,
                          "`cm is not None` (IF_NONE jumps)"),
    "enter_if_copied_flag": (enter_if_copied_flag,
                             enter_if_copied_flag__flipped,
                             "a local copied from the argument"),
    "enter_if_enabled": (enter_if_enabled, enter_if_enabled__flipped,
                         "a bool computed once into a local"),
    "two_flags": (two_flags, two_flags__flipped, "two flags, two managers"),
    "nested_flags": (nested_flags, nested_flags__flipped,
                     "the inner enter under both flags"),
    "with_inside_if": (with_inside_if, with_inside_if__flipped,
                       "a with inside `if flag` and an explicit manager"),
    "exit_in_except_and_after": (exit_in_except_and_after,
                                 exit_in_except_and_after__flipped,
                                 "exit in a re-raising except and after"),
    "early_return": (early_return, early_return__flipped,
                     "returns inside the protected region"),
    "one_of_two": (one_of_two, one_of_two__flipped,
                   "if/else choice of the manager"),
    "with_or_explicit": (with_or_explicit, with_or_explicit__flipped,
                         "a with or an explicit enter"),
    "flag_with_other_branch": (flag_with_other_branch,
                               flag_with_other_branch__flipped,
                               "an unrelated branch in between"),
}
