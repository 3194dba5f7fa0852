"""`import pyverify` where the compiled module does not fit says what is
wrong and what to do (issue 27): the source tree's python/ first on
PYTHONPATH, and a build for 3.11 imported by another version. Before, both
were "No module named 'pyverify._pyverify'"."""
import glob
import os
import subprocess
import sys

import pytest

import pyverify

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BUILT = os.path.dirname(os.path.dirname(os.path.abspath(pyverify.__file__)))
# pyenv's interpreters, where the top-level CMakeLists.txt looks for them.
OTHER = sorted(glob.glob(os.path.expanduser(
    "~/.pyenv/versions/3.1[23].*/bin/python3.1[23]")))


def import_under(python, path):
    env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [python, "-c", "import pyverify"], env=env, cwd=ROOT,
        capture_output=True, text=True, timeout=60)


def last_error(r):
    assert r.returncode != 0, r.stdout + r.stderr
    text = r.stderr[r.stderr.index("ImportError: pyverify:"):]
    assert "No module named" not in text, r.stderr
    return text


def test_source_tree_first():
    r = import_under(sys.executable, os.pathsep.join(
        [os.path.join(ROOT, "python"), BUILT]))
    text = last_error(r)
    assert ("the pyverify imported from %s is the source tree"
            % os.path.join(ROOT, "python", "pyverify")) in text
    minor = "%d.%d" % sys.version_info[:2]
    assert "To import pyverify under CPython %s" % minor in text
    assert "<build>/python" in text and "-m pip install" in text


@pytest.mark.skipif(not OTHER, reason="no pyenv python3.12/3.13 here")
@pytest.mark.parametrize("python", OTHER)
def test_build_for_another_version(python):
    minor = os.path.basename(python)[len("python"):]
    text = last_error(import_under(python, BUILT))
    here = "%d.%d" % sys.version_info[:2]
    assert ("the pyverify imported from %s was built for CPython %s"
            % (os.path.join(BUILT, "pyverify"), here)) in text
    assert "not for this interpreter (CPython %s" % minor in text
    assert "<build>/python-%s" % minor in text
    assert "python%s -m pip install" % minor in text


def test_still_an_import_error():
    """`except ImportError` around `import pyverify` keeps working."""
    r = subprocess.run(
        [sys.executable, "-c", "try:\n import pyverify\n"
         "except ImportError as e:\n print(type(e).__name__, e.name)"],
        env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.stdout.split() == ["ImportError", "pyverify._pyverify"], r.stderr
