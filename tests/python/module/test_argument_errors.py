"""Bad arguments are a TypeError or ValueError that names the argument
(issue 14, item 6) -- never pybind11's internal cast error or a raw
AttributeError from inside the module."""

import pytest

import pyverify


def f(x):
    with open(x) as h:
        return h.read()


CODE = f.__code__


def bundle(**ctx):
    c = {"kind": "with", "handler": 0, "stack_index": 0}
    c.update(ctx)
    return {"original": CODE,
            "resumes": [{"code": CODE, "original_offset": 0,
                         "contexts": [c]}]}


@pytest.mark.parametrize("value,exc,message", [
    (1, TypeError, r"resumes\[0\]\.contexts\[0\]\.kind must be 'with' or "
                   r"'mode', not int"),
    ("bogus", ValueError, r"resumes\[0\]\.contexts\[0\]\.kind must be "
                          r"'with' or 'mode', not 'bogus'"),
])
def test_bad_context_kind(value, exc, message):
    with pytest.raises(exc, match=message) as e:
        pyverify.verify_bundle(bundle(kind=value))
    assert "Unable to cast" not in str(e.value)


def test_bad_offsets():
    with pytest.raises(TypeError, match=r"resumes\[0\]\.contexts\[0\]"
                                        r"\.handler must be an int, not str"):
        pyverify.verify_bundle(bundle(handler="12"))
    with pytest.raises(ValueError, match=r"stack_index is out of range"):
        pyverify.verify_bundle(bundle(stack_index=-1))
    with pytest.raises(TypeError, match="break_offset must be an int"):
        pyverify.verify_bundle(original=CODE, break_offset=None)
    with pytest.raises(TypeError, match=r"resumes\[0\]\.contexts must be a "
                                        r"list, not int"):
        pyverify.verify_bundle(original=CODE, resumes=[
            {"code": CODE, "original_offset": 0, "contexts": 3}])
    with pytest.raises(TypeError, match="resumes must be a list, not int"):
        pyverify.verify_bundle(original=CODE, resumes=3)


def test_install_bad_function():
    with pytest.raises(TypeError, match="install: func must be a function, "
                                        "not NoneType"):
        pyverify.install(None, CODE)
    with pytest.raises(TypeError, match="install: code must be a code "
                                        "object, not int"):
        pyverify.install(f, 3)


@pytest.mark.parametrize("checks,exc,message", [
    (3, TypeError, "checks must be a str or an iterable of str, not int"),
    ([1], TypeError, r"checks\[0\] must be a str, not int"),
    (["stack-*", None], TypeError, r"checks\[1\] must be a str, not NoneType"),
    ("no-such-check", ValueError, "checks: .*no-such-check"),
])
def test_bad_checks(checks, exc, message):
    for call in (lambda: pyverify.verify(CODE, checks=checks),
                 lambda: pyverify.check(CODE, checks=checks),
                 lambda: pyverify.verify_bundle(original=CODE,
                                                checks=checks)):
        with pytest.raises(exc, match=message):
            call()
