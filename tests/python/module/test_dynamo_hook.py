"""pyverify.dynamo end to end: the rewriter's emitted code fed through the
bytecode-hook contract (dynamo_contract.py), and pyverify.guard().

The oracle for a paired bundle is the rewriter's own bundle: the claims the
hook derives from the code must be the rewriter's (break offset, resume
offset, contexts), and the hook's findings those of verify_bundle on the
rewriter's bundle. The variants' expected check ids (pyverify_rewriter's
EXPECT) must be found."""

import types
import warnings

import pytest

import pyverify
import pyverify.dynamo as pd

pyverify_rewriter = pytest.importorskip("pyverify_rewriter")
import dynamo_contract  # noqa: E402
from pyverify_rewriter.cli import DEFAULT_CASES, _load_cases  # noqa: E402
from pyverify_rewriter.rewriter import reset_counter  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_hooks():
    yield
    pd.uninstall()
    dynamo_contract._bytecode_hooks.clear()


def ids(reports):
    return sorted(d.check for _, r in reports for d in r)


def fixtures():
    """(case name, function, break point, variant) for every applicable
    variant at every eligible break point of the rewriter's cases."""
    cases = _load_cases(DEFAULT_CASES)
    out = []
    for name, (fn, _) in cases.CASES.items():
        for bp in pyverify_rewriter.break_points(fn, cases.MODE_CLASS_NAMES):
            if bp.eligible:
                out.append((name, fn, bp))
    return out


FIXTURES = fixtures()


def test_without_torch_says_so():
    with pytest.raises(pd.DynamoNotAvailable) as e:
        pd.install()
    assert "torch._dynamo.convert_frame" in str(e.value)
    assert "registry=" in str(e.value)
    assert pd.installed() is None


def test_install_arguments_are_checked_before_registering():
    with pytest.raises(ValueError, match="mode must be one of"):
        pd.install(mode="loud", registry=dynamo_contract)
    with pytest.raises(TypeError, match="checks must be a str"):
        pd.install(checks=3, registry=dynamo_contract)
    with pytest.raises(ValueError, match="checks: .*no-such-check"):
        pd.install(checks="no-such-check", registry=dynamo_contract)
    with pytest.raises(pd.DynamoNotAvailable, match="register_bytecode_hook"):
        pd.install(registry=object())
    assert not dynamo_contract._bytecode_hooks


def test_install_uninstall():
    h = pd.install(mode="log", registry=dynamo_contract)
    assert pd.installed() is h and len(dynamo_contract._bytecode_hooks) == 1
    h2 = pd.install(mode="log", registry=dynamo_contract)  # replaces
    assert pd.installed() is h2 and len(dynamo_contract._bytecode_hooks) == 1
    assert pd.uninstall() is True
    assert not dynamo_contract._bytecode_hooks
    assert pd.uninstall() is False


def test_every_fixture_through_the_hook():
    """Every variant at every break point: paired like the rewriter's own
    bundle when no torch-function mode is involved, and the expected check
    found."""
    hook = pd.install(mode="log", registry=dynamo_contract)
    n_paired = n_unpaired = n_buggy_found = 0
    for name, fn, bp in FIXTURES:
        for variant in pyverify_rewriter.VARIANTS:
            reset_counter()
            g = dict(fn.__globals__)
            try:
                r, out = dynamo_contract.compile_break(
                    fn, bp.offset, g, variant=variant, modes=bp.modes)
            except pyverify_rewriter.VariantNotApplicable:
                continue
            where = "%s@%d %s" % (name, bp.offset, variant)
            assert out is r.frame, where  # the hook keeps out_code
            ev = hook.events[-1]
            assert ev.code is fn.__code__ and ev.out_code is r.frame
            if not r.modes:
                n_paired += 1
                assert ev.unpaired is None, where
                assert ev.bundle["break_offset"] == r.break_offset, where
                (res,) = ev.bundle["resumes"]
                assert res["code"] is r.resume, where
                assert res["original_offset"] == r.resume_offset, where
                assert res["contexts"] == [dict(c) for c in r.contexts], where
                assert ids(ev.reports) == sorted(
                    d.check for d in pyverify.verify_bundle(r)), where
            else:
                n_unpaired += 1
                assert ev.bundle is None, where
                assert "torch-function mode stack" in ev.unpaired, where
                labels = [label for label, _ in ev.reports]
                assert labels == ["frame", "resume " + r.resume_name], where
            if r.expect == "ok":
                assert ev.ok, where + "\n" + ev.text()
            elif not r.expect.startswith("smt:"):
                assert not ev.ok, where
                assert r.expect in ids(ev.reports), where
                n_buggy_found += 1
    print("paired %d, unpaired %d, buggy found %d"
          % (n_paired, n_unpaired, n_buggy_found))
    assert n_paired > 20 and n_unpaired > 5 and n_buggy_found > 20, \
        (n_paired, n_unpaired, n_buggy_found)
    assert hook.calls == len(hook.events)


def test_resume_compiled_later_is_checked():
    hook = pd.install(mode="raise", registry=dynamo_contract)
    name, fn, bp = next(f for f in FIXTURES if not f[2].modes)
    g = dict(fn.__globals__)
    r, _ = dynamo_contract.compile_break(fn, bp.offset, g)
    dynamo_contract.compile_resume(g[r.resume_name], g)
    ev = hook.events[-1]
    assert ev.code is r.resume and ev.ok and ev.bundle is None
    assert ev.unpaired is None  # the resume function loads no resume global


def test_raise_mode_stops_the_install():
    pd.install(mode="raise", registry=dynamo_contract)
    for name, fn, bp in FIXTURES:
        if bp.modes or not bp.contexts:
            continue
        reset_counter()
        g = dict(fn.__globals__)
        # Dynamo's _compile re-raises it (from None): the EmittedCodeError
        # is the context
        with pytest.raises(dynamo_contract.InternalTorchDynamoError) as e:
            dynamo_contract.compile_break(
                fn, bp.offset, g, variant="exit-missing-on-exception")
        assert str(e.value).startswith("EmittedCodeError: pyverify: "
                                       "context-not-exited in ")
        err = e.value.__context__
        assert isinstance(err, pd.EmittedCodeError)
        assert "[bundle]" in str(err)
        assert not err.event.ok and not err.report.ok
        # the correct rewrite goes through
        dynamo_contract.compile_break(fn, bp.offset, dict(fn.__globals__))
        return
    pytest.fail("no fixture with an ordinary context")


def test_warn_mode():
    pd.install(mode="warn", registry=dynamo_contract)
    name, fn, bp = next(f for f in FIXTURES
                        if not f[2].modes and f[2].contexts)
    with pytest.warns(pyverify.VerificationWarning, match="context-not-exit"):
        dynamo_contract.compile_break(fn, bp.offset, dict(fn.__globals__),
                                      variant="exit-missing-on-exception")


def test_globals_not_found_is_said():
    hook = pd.install(mode="log", registry=dynamo_contract,
                      globals_of=lambda code: None)
    name, fn, bp = next(f for f in FIXTURES if not f[2].modes)
    dynamo_contract.compile_break(fn, bp.offset, dict(fn.__globals__))
    ev = hook.events[-1]
    assert ev.bundle is None
    assert ev.unpaired == "the frame's globals were not found"
    assert [label for label, _ in ev.reports] == ["frame"]


def test_prove_refutes_a_flipped_operand():
    """prove=True: operand-flipped (no single-code pass can see it) is
    refuted through the hook; the correct rewrite is not."""
    hook = pd.install(mode="log", registry=dynamo_contract, prove=True)
    tried = 0
    for name, fn, bp in FIXTURES:
        if bp.modes:
            continue
        reset_counter()
        try:
            dynamo_contract.compile_break(fn, bp.offset, dict(fn.__globals__),
                                          variant="operand-flipped")
        except pyverify_rewriter.VariantNotApplicable:
            continue
        ev = hook.events[-1]
        assert ev.refuted and not ev.ok, name
        assert "refuted" in ev.text()
        dynamo_contract.compile_break(fn, bp.offset, dict(fn.__globals__))
        ev = hook.events[-1]
        assert ev.proof and not ev.refuted, name
        tried += 1
        if tried == 3:
            return
    pytest.fail("no operand-flipped fixture")


# --- pyverify.guard() -----------------------------------------------------

def _needs_stack(a, b, c):
    return [a, b, c, (a, b, c)]


def _small_stack():
    return _needs_stack.__code__.replace(co_stacksize=1)


def test_guard_blocks_a_bad_assignment():
    def f(a, b, c):
        return None

    old = f.__code__
    with pyverify.guard() as g:
        with pytest.raises(pyverify.VerificationError,
                           match="stacksize-too-small") as e:
            f.__code__ = _small_stack()
        assert "f.__code__" in str(e.value)
        assert f.__code__ is old  # the assignment did not happen
        f.__code__ = _needs_stack.__code__  # a good one goes through
    assert f(1, 2, 3) == [1, 2, 3, (1, 2, 3)]
    assert g.checked == 2 and len(g.failures) == 1 and g.closed
    f.__code__ = _small_stack()  # no guard active: not checked
    assert f.__code__ is not old


def test_guard_of_one_function():
    def f(a, b, c):
        return None

    def h(a, b, c):
        return None

    g = pyverify.guard(f)
    try:
        h.__code__ = _small_stack()  # not guarded
        with pytest.raises(pyverify.VerificationError):
            f.__code__ = _small_stack()
    finally:
        g.close()
    assert g.checked == 1
    f.__code__ = _small_stack()


def test_guard_warn_mode_and_arguments():
    def f(a, b, c):
        return None

    with pyverify.guard(mode="warn"):
        with pytest.warns(pyverify.VerificationWarning):
            f.__code__ = _small_stack()
    assert f.__code__.co_stacksize == 1
    with pytest.raises(TypeError, match="argument 0 must be a function"):
        pyverify.guard(None)
    with pytest.raises(ValueError, match="mode must be"):
        pyverify.guard(mode="log")
    with pytest.raises(TypeError, match="checks must be a str"):
        pyverify.guard(checks=3)


def test_guard_checks_install():
    """pyverify.install inside a guard is checked once by each."""
    def f(a, b, c):
        return None

    with pyverify.guard() as g:
        pyverify.install(f, _needs_stack.__code__)
    assert g.checked == 1
