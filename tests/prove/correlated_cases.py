"""Context balance that depends on branch correlation (Python 3.11).

Each case enters a context manager under a condition and exits it under the
*same* condition later (explicit ``cm.__enter__()`` / ``cm.__exit__(None,
None, None)`` on a local, or a ``with`` statement inside the branch). The
dataflow pass of ``pyverify check`` merges the entered / not-entered states
at the join after the first ``if`` and can only say "possibly" (a warning);
the SMT prover (``pyverify prove``) correlates the two tests and proves that
every path, including every exception path, exits exactly once what it
entered.

Every case ``NAME`` has a FLIPPED twin ``NAME__flipped``, made by
``flipped()``: the one ``if`` marked ``# flip`` is inverted, so one path
enters without exiting (or exits without entering): the prover must refute
it with a counterexample.

Assumptions the cases rely on (those of docs/context-balance.md): a local
holding an entered manager is bound and has ``__enter__``/``__exit__``; the
truth value of an unchanged local is the same each time it is tested (a
``POP_JUMP_IF_*`` on a value whose ``__bool__`` already returned once does
not raise and gives the same answer). The ``is not None`` cases need no
truthiness at all (``POP_JUMP_FORWARD_IF_[NOT_]NONE`` cannot raise).

``CASES`` maps a name to ``(function, flipped_function, what)``.
"""
import ast
import inspect
import textwrap


# 1. The example of the brief: the same flag tested twice.
def enter_if_flag(flag, cm, work):
    if flag:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:  # flip
            cm.__exit__(None, None, None)


# 2. Tested through `not` both times.
def enter_unless_flag(flag, cm, work):
    if not flag:
        cm.__enter__()
    try:
        work()
    finally:
        if not flag:  # flip
            cm.__exit__(None, None, None)


# 3. `is not None` on the manager itself (POP_JUMP_FORWARD_IF_NONE).
def enter_if_not_none(cm, work):
    if cm is not None:
        cm.__enter__()
    try:
        return work()
    finally:
        if cm is not None:  # flip
            cm.__exit__(None, None, None)


# 4. The flag copied into a local; enter tests the copy, exit the argument.
def enter_if_copied_flag(flag, cm, work):
    use = flag
    if use:
        cm.__enter__()
    try:
        work()
    finally:
        if flag:  # flip
            cm.__exit__(None, None, None)


# 5. A bool computed once (IS_OP result) and stored in a local.
def enter_if_enabled(cm, work):
    enabled = cm is not None
    if enabled:  # flip
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
            if b:  # flip
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
        if outer:  # flip
            cm1.__exit__(None, None, None)


# 8. A `with` inside `if flag`, plus an explicit manager entered and exited
#    under the same flag around it.
def with_inside_if(flag, cm, res, work):
    if flag:  # flip
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
    if flag:  # flip
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
        if flag:  # flip
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
        if flag:  # flip
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
        if not flag:  # flip
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
        if flag:  # flip
            cm.__exit__(None, None, None)


def flipped(func):
    """The twin of case ``func`` with its ``if`` marked ``# flip`` inverted
    (``not x`` <-> ``x``, ``is`` <-> ``is not``), compiled from this file
    so that its line numbers are those of the case, and named
    ``NAME__flipped``."""
    lines, first = inspect.getsourcelines(func)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    marked = [first + k for k, line in enumerate(lines)
              if line.rstrip().endswith("# flip")]
    ifs = [n for n in ast.walk(tree)
           if isinstance(n, ast.If) and n.lineno in marked]
    assert len(marked) == 1 and len(ifs) == 1, (
        "%s: exactly one `if ...:  # flip` line" % func.__name__)
    test = ifs[0].test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        ifs[0].test = test.operand
    elif (isinstance(test, ast.Compare) and len(test.ops) == 1
          and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
        test.ops = [ast.IsNot() if isinstance(test.ops[0], ast.Is)
                    else ast.Is()]
    else:
        ifs[0].test = ast.copy_location(
            ast.UnaryOp(op=ast.Not(), operand=test), test)
    tree.body[0].name = func.__name__ + "__flipped"
    namespace = {}
    exec(compile(ast.fix_missing_locations(tree), __file__, "exec"),
         globals(), namespace)
    return namespace[tree.body[0].name]


_WHAT = {
    "enter_if_flag": "the same flag tested twice",
    "enter_unless_flag": "`not flag` both times",
    "enter_if_not_none": "`cm is not None` (IF_NONE jumps)",
    "enter_if_copied_flag": "a local copied from the argument",
    "enter_if_enabled": "a bool computed once into a local",
    "two_flags": "two flags, two managers",
    "nested_flags": "the inner enter under both flags",
    "with_inside_if": "a with inside `if flag` and an explicit manager",
    "exit_in_except_and_after": "exit in a re-raising except and after",
    "early_return": "returns inside the protected region",
    "one_of_two": "if/else choice of the manager",
    "with_or_explicit": "a with or an explicit enter",
    "flag_with_other_branch": "an unrelated branch in between",
}

CASES = {name: (globals()[name], flipped(globals()[name]), what)
         for name, what in _WHAT.items()}
