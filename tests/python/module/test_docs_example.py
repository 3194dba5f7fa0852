"""docs/python.md's worked example runs as written and prints what the
document says it prints."""

import contextlib
import io
import os
import re

from conftest import ROOT


def test_worked_example_runs():
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        doc = f.read()
    m = re.search(r"<!-- worked-example -->\n```python\n(.*?)\n```\n\n"
                  r"It prints (.*?)\.\n", doc, re.S)
    assert m, "the worked example (and what it prints) is in docs/python.md"
    source, prints = m.group(1), m.group(2)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "docs/python.md", "exec"), {"__name__": "doc"})
    want = re.findall(r"`([^`]*)`", prints)
    assert out.getvalue().splitlines() == want


# --- every example of docs/python.md (issue 27: its first 3.12 example
# raised TypeError and no test ran it) -----------------------------------

import ast
import glob
import logging
import subprocess
import sys

import pytest

import pyverify


def _doc():
    with open(os.path.join(ROOT, "docs", "python.md")) as f:
        return f.read()


def _blocks(lang):
    """(marker or None, source) of each ```lang block; the marker is an
    `<!-- example: NAME -->` line just before the block."""
    out = []
    for m in re.finditer(r"(?:<!-- example: ([\w-]+) -->\n)?```%s\n(.*?)\n```"
                         % lang, _doc(), re.S):
        out.append((m.group(1), m.group(2)))
    return out


def _signature_names(source):
    """The pyverify.NAME of each line `pyverify.NAME(...) -> T` of an API
    signature block (with continuation lines), or None when the block is
    not one."""
    names = []
    for call in re.split(r"\n(?=pyverify\.)", source):
        m = re.match(r"pyverify\.([\w.]+)\((.*)\)(?: -> [\w.]+)?$", call, re.S)
        if not m:
            return None
        names.append(m.group(1))
    return names


def test_every_python_block_parses_or_is_a_signature():
    blocks = _blocks("python")
    assert len(blocks) >= 8
    for marker, source in blocks:
        try:
            ast.parse(source)
            continue
        except SyntaxError:
            pass
        names = _signature_names(source)
        assert names, "neither Python nor an API signature:\n" + source
        for name in names:
            obj = pyverify
            for part in name.split("."):
                obj = getattr(obj, part)    # the documented function exists


def _compiler_loop():
    [source] = [s for m, s in _blocks("python") if m == "compiler-loop"]
    ns = {"__name__": "doc"}
    exec(compile(source, "docs/python.md", "exec"), ns)
    return ns["compile_and_install"]


def test_compiler_loop_example_runs(caplog):
    compile_and_install = _compiler_loop()

    def scale(x):
        with open("/dev/null"):
            return x * 2

    def triple(x):
        with open("/dev/null"):
            return x * 3

    old = scale.__code__
    bad = old.replace(co_stacksize=1)
    with caplog.at_level(logging.ERROR, logger="mycompiler"):
        assert compile_and_install(scale, lambda c: (bad, ())) is scale
    assert scale.__code__ is old
    assert "refusing to install test_compiler_loop_example_runs.<locals>.scale" \
        in caplog.text and "[exception-table-depth-exceeds-stacksize]" \
        in caplog.text
    good = triple.__code__.replace(co_name="scale", co_qualname="scale")
    assert compile_and_install(scale, lambda c: (good, ())) is scale
    assert scale.__code__ is good and scale(2) == 6


def _interpreter(name):
    """python3.11 is the one running the tests; python3.12 / 3.13 are
    found as the top-level CMakeLists.txt finds them (pyenv)."""
    if name == "python%d.%d" % sys.version_info[:2]:
        return sys.executable
    found = sorted(glob.glob(os.path.expanduser(
        "~/.pyenv/versions/%s.*/bin/%s" % (name[len("python"):], name))))
    return found[-1] if found else None


def test_every_command_runs_under_its_interpreter():
    """Each `PYTHONPATH=build/... pythonX.Y -c "..."` of docs/python.md, with
    build/ the build tree this module was imported from."""
    build = os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(pyverify.__file__))))
    cmds = re.findall(r'^PYTHONPATH=build/(\S+) (python3\.\d+) -c "(.*)"$',
                      _doc(), re.M)
    assert len(cmds) >= 2, cmds
    ran = 0
    for pkg, name, code in cmds:
        exe = _interpreter(name)
        path = os.path.join(build, pkg)
        if exe is None or not os.path.isdir(path):
            continue            # that interpreter's module is not built here
        r = subprocess.run([exe, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=path))
        assert r.returncode == 0, "%s %s: %s" % (name, code, r.stderr)
        ran += 1
    assert ran >= 1
