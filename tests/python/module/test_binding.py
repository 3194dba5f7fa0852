"""verify()'s fast binding (python/src/Module.cpp, LiveCode.cpp): the
vectorcall entry point and its fallback to the pybind11 binding, the
per-thread reader whose buffers and constant payloads are reused from call
to call, the per-thread cache of parsed check specs and the shared clean
Report. None of them may change a result or an exception."""
import marshal
import threading

import pytest

import breakcode as bc
import pyverify
from pyverify import _pyverify

from conftest import walk


def add(a, b):
    return a + b * 2


def with_body(cm, body):
    with cm as x:
        body(x)


def many_constants(x):
    """A docstring longer than a short-string buffer, to be refilled."""
    if x == "a fairly long string constant, refilled by the next read":
        return (1, 2.5, "three", b"four", None, (5, ("six", b"seven")))
    return frozenset({"eight", "nine"}), 10 ** 30, -(2 ** 70), 1j


BROKEN = bc.set_stacksize(add.__code__, 1)


def test_argument_forms_agree():
    expected = str(pyverify.verify(BROKEN))
    shallow = str(pyverify.verify(BROKEN, recursive=False))
    # Forwarded to the pybind11 binding: keyword code, non-bool recursive.
    assert str(pyverify.verify(code=BROKEN)) == expected
    assert str(pyverify.verify(BROKEN, recursive=1)) == expected
    assert str(pyverify.verify(BROKEN, recursive=0)) == shallow
    # Keyword names that are not the interned ones.
    kw = {"".join(["recur", "sive"]): False, "".join(["che", "cks"]): None}
    assert str(pyverify.verify(BROKEN, **kw)) == shallow
    assert str(pyverify.verify(BROKEN, checks=None, recursive=True)) == \
        expected


@pytest.mark.parametrize("call", [
    lambda: pyverify.verify(),
    lambda: pyverify.verify(add, True),
    lambda: pyverify.verify(add, nope=1),
    lambda: pyverify.verify(add, recursive="x"),
    lambda: pyverify.verify(42),
    lambda: pyverify.verify(42, recursive=False),
], ids=["no-args", "positional-option", "unknown-keyword", "bad-recursive",
        "not-code", "not-code-fast"])
def test_bad_calls_are_type_errors(call):
    with pytest.raises(TypeError):
        call()


def test_bad_checks_are_value_errors_every_time():
    # A bad spec is not cached: it fails on every call, before the code
    # argument is looked at.
    for _ in range(3):
        with pytest.raises(ValueError, match="no-such-check"):
            pyverify.verify(add, checks="no-such-check")
        with pytest.raises(ValueError, match="no-such-check"):
            pyverify.verify(42, checks=["-*", "no-such-check"])


def test_alternating_check_specs():
    all_checks = str(pyverify.verify(BROKEN))
    none = str(pyverify.verify(BROKEN, checks="-*"))
    only = str(pyverify.verify(BROKEN, checks=["-*", "stacksize-too-small"]))
    assert all_checks != none and only != none
    for _ in range(3):
        assert str(pyverify.verify(BROKEN, checks="-*")) == none
        assert str(pyverify.verify(BROKEN)) == all_checks
        assert str(pyverify.verify(
            BROKEN, checks="-*,stacksize-too-small")) == only
        assert str(pyverify.verify(BROKEN, checks=("-*",))) == none


class ReentrantConstant:
    """A constant whose repr (taken while the outer call reads its code
    object) verifies other code with other checks on the same thread."""

    def __init__(self):
        self.inner = []

    def __repr__(self):
        self.inner.append(str(pyverify.verify(BROKEN, checks="-*,stack*")))
        self.inner.append(str(pyverify.verify(many_constants)))
        return "ReentrantConstant()"


def test_verify_reentered_from_a_constant_repr():
    const = ReentrantConstant()
    code = BROKEN.replace(co_consts=BROKEN.co_consts + (const, "tail"))
    plain = BROKEN.replace(co_consts=BROKEN.co_consts + (object(), "tail"))
    for recursive in (True, False):
        outer = pyverify.verify(code, recursive=recursive)
        assert str(outer) == str(pyverify.verify(plain, recursive=recursive))
        assert not outer.ok
    assert const.inner[0] == str(pyverify.verify(BROKEN, checks="-*,stack*"))
    assert const.inner[1] == str(pyverify.verify(many_constants))


def test_results_do_not_depend_on_the_previous_call():
    # The thread's reader keeps buffers and payloads from call to call.
    import test_module
    with open(threading.__file__) as f:
        module = compile(f.read(), threading.__file__, "exec")
    codes = [add.__code__, BROKEN, with_body.__code__,
             many_constants.__code__]
    codes += list(walk(module))
    codes += [code for _, code, _ in test_module.CASES]

    def run(order):
        return {id(c): (str(pyverify.verify(c)),
                         str(pyverify.verify(c, recursive=False)))
                for c in order}

    forward = run(codes)
    backward = run(codes[::-1])
    assert forward == backward


def test_reports_are_immutable():
    clean = pyverify.verify(add)
    dirty = pyverify.verify(BROKEN)
    for r in (clean, dirty):
        with pytest.raises(AttributeError):
            r.code_objects = 5
        with pytest.raises(AttributeError):
            r.extra = 1
    assert clean.ok and len(clean) == 0 and clean.code_objects == 1
    assert pyverify.verify(add, recursive=False).code_objects == 1
    module = compile("def f():\n    return 1\n", "<m>", "exec")
    assert pyverify.verify(module).code_objects == 2


def test_reused_reader_matches_marshal(stdlib_codes):
    # verify() reads each root into the thread's buffers, refilling the
    # previous read's payloads: field by field, the same tree as marshal.
    diffs = []
    for root in stdlib_codes:
        d = _pyverify._compare_with_marshal(root, marshal.dumps(root),
                                            reuse=True)
        if d is not None:
            diffs.append((root.co_filename, d))
    assert not diffs, diffs[:5]


def test_time_phases_hook():
    read_ns, check_ns, findings = _pyverify._time_phases(BROKEN, 2)
    assert read_ns >= 0 and check_ns > 0 and findings > 0
    assert _pyverify._time_phases(add, 1)[2] == 0


def test_shared_constants_are_converted_once():
    # A DAG of 2**20 paths (CPython's code.replace walks every path, so
    # not deeper): each inner tuple is in two slots of its parent, so the
    # reader remembers it (two references) and converts it once. The root
    # tuple and the nested code object have one reference each (the code
    # object's co_consts): not remembered, met once. Same tree as marshal's.
    t = ()
    for _ in range(20):
        t = (t, t)
    inner = compile("def g():\n    return 2\n", "<dag>", "exec").co_consts[0]
    code = add.__code__.replace(co_consts=add.__code__.co_consts + (t,))
    del t
    code = code.replace(co_consts=code.co_consts + (inner.replace(),))
    for recursive in (False, True):
        assert pyverify.verify(code, recursive=recursive).ok
    assert _pyverify._compare_with_marshal(code, marshal.dumps(code)) is None
    assert _pyverify._compare_with_marshal(code, marshal.dumps(code),
                                           reuse=True) is None


def test_fields_are_views_of_the_live_object():
    # verify()'s reader views the code object's own buffers; a name with a
    # lone surrogate has no UTF-8 of its own and is encoded into a copy
    # (as marshal writes it, "surrogatepass"). Both readers agree with
    # marshal, and a verify() between reads leaves nothing behind.
    base = compile("x = y\n", "<s>", "exec")
    odd = base.replace(co_names=("\ud800x", "y"), co_qualname="q\udfff",
                       co_filename="f\ud800.py")
    for code in (base, odd, base):
        for reuse in (False, True):
            assert _pyverify._compare_with_marshal(
                code, marshal.dumps(code), reuse=reuse) is None
        assert pyverify.verify(code).ok
