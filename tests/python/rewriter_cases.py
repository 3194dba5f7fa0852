"""Hand-written functions for the rewriter's runtime oracle.

Every case is a module-level function using the instrumented helpers below:

* ``op(label, value=None)`` -- an ordinary call.  Logs ``("call", label)``;
  the fault injector (``reset(raise_at=k)``) makes the k-th op call of a run
  raise ``Boom``, so every case is run with an exception before, at and after
  every break point.
* ``Ctx(name)`` -- a re-entrant, non-suppressing context manager; logs
  ``("enter", name)`` and ``("exit", name, exc_type_name_or_None)``.
* ``TFMode(name)`` -- a torch-function mode on the simulated mode stack
  (``pyverify_rewriter.modestack``); logs ``("push", name)``/``("pop", name)``.
  Modes are written ``TFMode("...")`` literally so break points know
  statically which active contexts are modes (``MODE_CLASS_NAMES``).

``CASES`` maps a case name to ``(function, [argument tuples])``.
"""

import sys

from pyverify_rewriter import modestack

LOG = []
_STATE = {"count": 0, "raise_at": None, "break_code": None, "break_hits": 0,
          "break_raised": 0}

MODE_CLASS_NAMES = frozenset({"TFMode"})


class Boom(Exception):
    pass


def reset(raise_at=None, break_code=None):
    LOG.clear()
    _STATE.update(count=0, raise_at=raise_at, break_code=break_code,
                  break_hits=0, break_raised=0)
    modestack.reset()


def op_count():
    return _STATE["count"]


def break_stats():
    """How often an op was called directly from the rewritten frame (i.e. was
    the unsupported instruction), and how often it raised there."""
    return _STATE["break_hits"], _STATE["break_raised"]


def op(label, value=None):
    k = _STATE["count"]
    _STATE["count"] = k + 1
    LOG.append(("call", label))
    at_break = (_STATE["break_code"] is not None and
                sys._getframe(1).f_code is _STATE["break_code"])
    if at_break:
        _STATE["break_hits"] += 1
    if _STATE["raise_at"] == k:
        LOG.append(("raise", label))
        if at_break:
            _STATE["break_raised"] += 1
        raise Boom(label)
    return label if value is None else value


class Ctx:
    def __init__(self, name="ctx"):
        self.name = name
        self.pv_ctor_args = (name,)

    def __enter__(self):
        LOG.append(("enter", self.name))
        return self

    def __exit__(self, exc_type, exc, tb):
        LOG.append(("exit", self.name,
                    None if exc_type is None else exc_type.__name__))
        return False

    def method(self, label):
        return op("m:" + label)


class Suppress(Ctx):
    """Not re-entrant-safe in the rewriters' sense: it suppresses."""

    def __exit__(self, exc_type, exc, tb):
        super().__exit__(exc_type, exc, tb)
        return True


class TFMode(modestack.Mode):
    pass


def _mode_listener(event, mode):
    LOG.append((event, mode.name))


modestack.listeners.append(_mode_listener)


class Obj:
    def __init__(self, tag):
        self.tag = tag

    def method(self, a, b=0):
        return op("obj.method", (self.tag, a, b))


# ---------------------------------------------------------------------------
# The cases

def running_example(x):
    with Ctx(False):
        y = x + 1
        op("graph break")
        y = y + 2
    return y


def nested_two(x):
    with Ctx("outer"):
        with Ctx("inner"):
            y = x + 1
            op("graph break")
            y = y + 2
    return y


def nested_three(x):
    with Ctx("a"):
        op("in a")
        with Ctx("b"):
            op("in b")
            with Ctx("c"):
                y = op("in c", x)
            op("after c")
        op("after b")
    return y


def multi_item(x):
    with Ctx("a"), Ctx("b"):
        y = op("body", x + 1)
    return y


def with_in_for(n):
    total = 0
    for i in range(n):
        with Ctx("loop"):
            total += op("step", i)
    return total


def with_for_with(n):
    # the inner suppress branch of the straightforward resume shape joins
    # the outer cleanup at two stack depths (see README)
    acc = []
    with Ctx("outer"):
        for i in range(n):
            with Ctx("inner"):
                acc.append(op("step", i))
        op("after loop")
    return acc


def return_in_with(x):
    with Ctx("r"):
        return op("ret", x * 2)


def return_in_nested(x):
    with Ctx("a"):
        with Ctx("b"):
            y = op("y", x)
            return op("ret", y + 1)


def return_const_in_with(x):
    with Ctx("a"):
        op("before", x)
        if x > 1:
            return "big"
        op("small")
    return "small"


def break_in_with_loop(n):
    out = []
    for i in range(n):
        with Ctx("b"):
            out.append(op("it", i))
            if i == 1:
                break
            op("tail", i)
    return out


def continue_in_with_loop(n):
    out = []
    for i in range(n):
        with Ctx("c"):
            if i % 2:
                op("odd", i)
                continue
            out.append(op("even", i))
    return out


def raise_after_break(x):
    with Ctx("a"):
        op("first", x)
        if x:
            raise ValueError("after")
        op("second")
    return x


def raise_before_break(x):
    with Ctx("a"):
        if x > 5:
            raise KeyError("before")
        y = op("call", x)
    return y


def with_in_try(x):
    try:
        with Ctx("t"):
            op("in try", x)
    except Boom:
        op("handled")
    op("after try")
    return x


def try_finally_around_with(x):
    try:
        with Ctx("f"):
            op("body", x)
    finally:
        op("finally")
    return op("end", x)


def with_in_except_handler(x):
    try:
        op("try body", x)
    except Boom:
        with Ctx("h"):
            op("handler")
    return op("after", x)


def mode_only(x):
    with TFMode("m"):
        y = op("in mode", x)
        op("second")
    return y


def mode_outer_ctx_inner(x):
    with TFMode("m"):
        with Ctx("a"):
            y = op("inner", x)
        op("after a")
    return y


def ctx_outer_mode_inner(x):
    with Ctx("a"):
        with TFMode("m"):
            y = op("inner", x)
        op("after m")
    return y


def two_modes(x):
    with TFMode("m1"):
        op("m1 body")
        with TFMode("m2"):
            y = op("m2 body", x)
    return y


def mixed_three(x):
    with Ctx("a"):
        with TFMode("m"):
            with Ctx("b"):
                y = op("deep", x)
            op("after b")
    return y


def kwargs_break(x):
    with Ctx("k"):
        y = op("kw", value=x + 1)
    return y


def method_break(x):
    obj = Obj("o")
    with Ctx("m"):
        y = obj.method(x, b=2)
        z = obj.method(y[1])
    return z


def nested_call_break(x):
    with Ctx("n"):
        y = op("outer", op("inner", x))
    return y


def dynamic_ctor(name):
    with Ctx(name):
        y = op("dyn", name)
    return y


def manager_variable(x):
    c = Ctx("v")
    with c:
        y = op("v", x)
    return y


def as_target(x):
    with Ctx("as") as q:
        op("body", x)
        y = q.name
    return y


def with_in_while(n):
    i = 0
    while i < n:
        with Ctx("w"):
            i = op("inc", i + 1)
    return i


def branches_in_with(x):
    with Ctx("br"):
        if x > 0:
            y = op("pos", x)
        else:
            y = op("neg", -x)
        y = op("join", y)
    return y


def kwarg_ctor(x):
    with Ctx(name="kwctor"):
        y = op("body", x)
    return y


def star_args(*args, **kwargs):
    with Ctx("star"):
        y = op("args", len(args))
        z = op("kwargs", sorted(kwargs))
    return y, z


def defaults_kwonly(a, b=2, *, c=3):
    with Ctx("d"):
        y = op("sum", a + b + c)
    return y


def _make_closure():
    scale = 3

    def closure_case(x):
        with Ctx("cl"):
            y = op("scaled", x * scale)
        return y
    return closure_case


closure_case = _make_closure()


def binary_operand(x):
    with Ctx("bin"):
        y = x + op("rhs", 5)
    return y


def listcomp_in_with(n):
    with Ctx("lc"):
        ys = [op("elem", i) for i in range(n)]
    return ys


def nested_loops(n):
    out = []
    for i in range(n):
        with Ctx("outer"):
            for j in range(n):
                with Ctx("inner"):
                    out.append(op("ij", (i, j)))
    return out


def sequential_withs(x):
    with Ctx("first"):
        op("one", x)
    with Ctx("second"):
        y = op("two", x)
    return y


def while_true_break(x):
    while True:
        with Ctx("wt"):
            x = op("dec", x - 1)
            if x <= 0:
                break
    return x


def try_body_break_outside(x):
    try:
        with Ctx("t"):
            op("inside", x)
    except Boom:
        pass
    with Ctx("after"):
        return op("outside", x)


def return_in_mode(x):
    with TFMode("rm"):
        return op("ret", x)


def mode_raise_later(x):
    with TFMode("ml"):
        op("one", x)
        if x:
            raise ValueError("in mode")
        op("two")
    return x


def fstring_in_with(x):
    with Ctx("fs"):
        s = f"<{op('fmt', x)}>"
    return s


def unpack_in_with(x):
    with Ctx("up"):
        a, b = op("pair", (x, x + 1))
    return a + b


def builtin_break(xs):
    with Ctx("bi"):
        n = len(xs)
        m = op("after len", n)
    return m


def deep_expression(x):
    with Ctx("deep"):
        y = [x, (x, op("leaf", x)), {"k": op("val", x)}]
    return y


def conditional_expr_arg(x):
    with Ctx("ce"):
        y = op("cond", "yes" if x else "no")
    return y


def exit_then_more(x):
    with Ctx("a"):
        with Ctx("b"):
            op("in b", x)
        op("between")
        with Ctx("c"):
            op("in c")
    return x


def loop_with_mode(n):
    for i in range(n):
        with TFMode("lm"):
            op("iter", i)
    return n


def del_local(x):
    with Ctx("del"):
        tmp = op("tmp", x)
        del tmp
        y = op("after del", x)
    return y


def with_return_in_loop(n):
    for i in range(n):
        with Ctx("rl"):
            if op("check", i) == 1:
                return i
    return -1


def identity_in_with(x):
    with Ctx("id"):
        y = op("first", x)
        if y is x:
            with Ctx("same"):
                op("same object")
    return y


def membership_in_with(x):
    with Ctx("mem"):
        y = op("first", x)
        if y in (1, 2):
            with Ctx("small"):
                op("small")
    return y


CASES = {
    "running_example": (running_example, [(10,)]),
    "nested_two": (nested_two, [(1,)]),
    "nested_three": (nested_three, [(4,)]),
    "multi_item": (multi_item, [(2,)]),
    "with_in_for": (with_in_for, [(0,), (3,)]),
    "with_for_with": (with_for_with, [(2,)]),
    "return_in_with": (return_in_with, [(3,)]),
    "return_in_nested": (return_in_nested, [(3,)]),
    "return_const_in_with": (return_const_in_with, [(1,), (2,)]),
    "break_in_with_loop": (break_in_with_loop, [(1,), (4,)]),
    "continue_in_with_loop": (continue_in_with_loop, [(4,)]),
    "raise_after_break": (raise_after_break, [(0,), (1,)]),
    "raise_before_break": (raise_before_break, [(1,), (9,)]),
    "with_in_try": (with_in_try, [(1,)]),
    "try_finally_around_with": (try_finally_around_with, [(1,)]),
    "with_in_except_handler": (with_in_except_handler, [(1,)]),
    "mode_only": (mode_only, [(1,)]),
    "mode_outer_ctx_inner": (mode_outer_ctx_inner, [(1,)]),
    "ctx_outer_mode_inner": (ctx_outer_mode_inner, [(1,)]),
    "two_modes": (two_modes, [(1,)]),
    "mixed_three": (mixed_three, [(1,)]),
    "kwargs_break": (kwargs_break, [(1,)]),
    "method_break": (method_break, [(1,)]),
    "nested_call_break": (nested_call_break, [(1,)]),
    "dynamic_ctor": (dynamic_ctor, [("dyn",)]),
    "manager_variable": (manager_variable, [(1,)]),
    "as_target": (as_target, [(1,)]),
    "with_in_while": (with_in_while, [(0,), (2,)]),
    "branches_in_with": (branches_in_with, [(1,), (-1,)]),
    "kwarg_ctor": (kwarg_ctor, [(1,)]),
    "star_args": (star_args, [((1, 2),), ()]),
    "defaults_kwonly": (defaults_kwonly, [(1,)]),
    "closure_case": (closure_case, [(2,)]),
    "binary_operand": (binary_operand, [(1,)]),
    "listcomp_in_with": (listcomp_in_with, [(2,)]),
    "nested_loops": (nested_loops, [(2,)]),
    "sequential_withs": (sequential_withs, [(1,)]),
    "while_true_break": (while_true_break, [(2,)]),
    "try_body_break_outside": (try_body_break_outside, [(1,)]),
    "return_in_mode": (return_in_mode, [(1,)]),
    "mode_raise_later": (mode_raise_later, [(0,), (1,)]),
    "fstring_in_with": (fstring_in_with, [(1,)]),
    "unpack_in_with": (unpack_in_with, [(1,)]),
    "builtin_break": (builtin_break, [([1, 2],)]),
    "deep_expression": (deep_expression, [(1,)]),
    "conditional_expr_arg": (conditional_expr_arg, [(0,), (1,)]),
    "exit_then_more": (exit_then_more, [(1,)]),
    "loop_with_mode": (loop_with_mode, [(2,)]),
    "del_local": (del_local, [(1,)]),
    "with_return_in_loop": (with_return_in_loop, [(3,)]),
    "identity_in_with": (identity_in_with, [(None,), (1,)]),
    "membership_in_with": (membership_in_with, [(1,), (5,)]),
}

# call signatures that need keyword arguments
KWARGS = {
    "star_args": {"k": 1},
    "defaults_kwonly": {"c": 5},
}


def call(name, func, args):
    return func(*args, **KWARGS.get(name, {}))
