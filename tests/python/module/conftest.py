"""Shared helpers for the `import pyverify` tests (ctest python-module).

The module is imported from the build tree (PYTHONPATH=<build>/python);
PYVERIFY_CLI names the pyverify binary of the same build, used as the
reference for the module's output.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lit", "Inputs"))
# pyverify_rewriter; appended so that the built pyverify package
# (PYTHONPATH=<build>/python) wins over the sources in python/pyverify.
sys.path.append(os.path.join(ROOT, "python"))


def stdlib_sources(root="/usr/lib/python3.11"):
    """(path, source bytes) of every stdlib module python3.11 compiles, in a
    stable order (site/dist-packages excluded; test data that is not valid
    3.11 source is skipped, as compileall skips it)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("site-packages", "dist-packages",
                                          "__pycache__"))
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    out.append((path, f.read()))
    return out


def compile_all(sources):
    codes = []
    for path, src in sources:
        try:
            codes.append(compile(src, path, "exec", dont_inherit=True))
        except (SyntaxError, ValueError):
            continue
    return codes


def walk(code):
    """code and every nested code object, pre-order."""
    yield code
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


@pytest.fixture(scope="session")
def stdlib_codes():
    return compile_all(stdlib_sources())


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("PYVERIFY_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("PYVERIFY_CLI not set")
    return path
